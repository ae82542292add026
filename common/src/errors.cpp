#include "copa/errors.hpp"

#include <cstdio>
#include <fstream>
#include <iostream>
#include <new>
#include <sstream>
#include <string>

namespace copa {

std::string format_bytes(double bytes) {
  const char* units[] = {"B", "KB", "MB", "GB", "TB"};
  int u = 0;
  while (bytes >= 1000.0 && u < 4) {
    bytes /= 1000.0;
    ++u;
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.2f %s", bytes, units[u]);
  return buf;
}

OutOfMemoryError::OutOfMemoryError(const std::string& what, std::size_t needed_bytes,
                                   std::size_t available_bytes, const std::string& where)
    : RuntimeError(what + " needs " + format_bytes(static_cast<double>(needed_bytes)) + " of " + where +
                   " memory, but only " + format_bytes(static_cast<double>(available_bytes)) +
                   " is available"),
      needed_(needed_bytes),
      available_(available_bytes) {}

int guarded_main(const std::function<int()>& body) {
  try {
    return body();
  } catch (const InputError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return exit_bad_input;
  } catch (const RuntimeError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return exit_runtime_failure;
  } catch (const std::bad_alloc&) {
    std::cerr << "error: out of host memory (an allocation failed)\n";
    return exit_runtime_failure;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return exit_runtime_failure;
  }
}

std::size_t host_memory_available() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  std::size_t kb = 0;
  std::string unit;
  while (in >> key >> kb >> unit) {
    if (key == "MemAvailable:") return kb * 1024;
  }
  return 0;
}

void require_host_memory(std::size_t bytes, const std::string& what) {
  const std::size_t available = host_memory_available();
  if (available > 0 && bytes > available) throw OutOfMemoryError(what, bytes, available, "host");
}

}  // namespace copa
