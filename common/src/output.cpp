#include "copa/output.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "copa/errors.hpp"
#include "copa/mpi.hpp"

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

void require_writable_output(const std::string& option, const std::string& path) {
  if (path.empty()) return;
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path p(path);
  if (fs::is_directory(p, ec)) throw InputError(option + ": '" + path + "' is a directory");
  if (fs::exists(p, ec) && !fs::is_regular_file(p, ec)) {
    if (::access(path.c_str(), W_OK) != 0) throw InputError(option + ": '" + path + "' is not writable");
    return;
  }
  const fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
  if (!fs::is_directory(dir, ec))
    throw InputError(option + ": directory '" + dir.string() + "' of '" + path + "' " +
                     (fs::exists(dir, ec) ? "is not a directory" : "does not exist"));
  const std::string probe = path + ".probe-" + std::to_string(mpi::rank()) + "-" + std::to_string(::getpid());
  errno = 0;
  std::ofstream out(probe, std::ios::app);
  if (!out)
    throw InputError(option + ": cannot create a file in directory '" + dir.string() + "' of '" + path + "' (" +
                     errno_text() + ")");
  out.close();
  fs::remove(probe, ec);
}

}  // namespace copa
