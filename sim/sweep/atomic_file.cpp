#include "sim/sweep/atomic_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "sim/common/error.hpp"

namespace geotrain::sweep {

namespace {

void write_all(int fd, const std::string& text, const std::string& path) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw SystemError("write " + path, errno, std::strerror(errno));
    done += static_cast<std::size_t>(n);
  }
}

}  // namespace

void write_text_atomically(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw SystemError("open " + tmp, errno, std::strerror(errno));
  try {
    write_all(fd, text, tmp);
    if (::fsync(fd) != 0) throw SystemError("fsync " + tmp, errno, std::strerror(errno));
  } catch (...) {
    ::close(fd);
    ::unlink(tmp.c_str());
    throw;
  }
  ::close(fd);
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int e = errno;
    ::unlink(tmp.c_str());
    throw SystemError("rename " + tmp + " " + path, e, std::strerror(e));
  }
}

}  // namespace geotrain::sweep
