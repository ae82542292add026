#include "copa/output.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "copa/errors.hpp"

namespace copa {

namespace {

[[noreturn]] void fail(const std::string& option, const std::string& path, const std::string& why) {
  throw RuntimeError(option + ": writing '" + path + "' failed: " + why);
}

std::string errno_text() { return errno ? std::strerror(errno) : "an I/O error"; }

void write_checked(const std::string& file, const std::string& option, const std::string& path,
                   const std::function<void(std::ostream&)>& body) {
  errno = 0;
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  if (!out) fail(option, path, errno_text());
  body(out);
  out.flush();
  if (!out) fail(option, path, errno_text());
  out.close();
  if (out.fail()) fail(option, path, errno_text());
}

}  // namespace

void write_output(const std::string& path, const std::string& option,
                  const std::function<void(std::ostream&)>& body) {
  if (path.empty()) fail(option, path, "empty file name");
  struct stat st {};
  if (stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    if (S_ISDIR(st.st_mode)) fail(option, path, "it is a directory");
    write_checked(path, option, path, body);  // a device or FIFO: no rename over it
    return;
  }
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  try {
    write_checked(tmp, option, path, body);
  } catch (...) {
    std::remove(tmp.c_str());
    throw;
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string why = errno_text();
    std::remove(tmp.c_str());
    fail(option, path, why);
  }
}

}  // namespace copa
