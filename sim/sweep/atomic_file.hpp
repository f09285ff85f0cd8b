#pragma once
// Writes a whole file or nothing: a temporary file beside it, fsync, then rename. A sweep killed
// at any moment leaves either the old file, the new one, or a stray *.tmp.<pid> that readers
// ignore.
#include <string>

namespace geotrain::sweep {

void write_text_atomically(const std::string& path, const std::string& text);

}  // namespace geotrain::sweep
