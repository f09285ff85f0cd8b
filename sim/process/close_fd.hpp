#pragma once
// Closing a descriptor that may already be closed, the one way every file here does it.
#include <unistd.h>

namespace geotrain::process {

// Closes fd if open and marks it closed (-1), so a second call is harmless.
inline void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

}  // namespace geotrain::process
