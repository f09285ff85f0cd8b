#pragma once
// Temporary test folders are removed when the test process exits, so repeated test runs leave
// nothing behind in the temp folder. Forked children (simulations run one per process) inherit
// the list but never remove: only the process that registered a folder does.
#include <string>

namespace geotrain::test {

void remove_at_exit(const std::string& path);

}  // namespace geotrain::test
