#include "copa/errors.hpp"

#include <cstdio>
#include <fstream>
#include <iostream>
#include <new>
#include <sstream>
#include <string>

#include "copa/mpi.hpp"

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

namespace {
// One rank failing alone would leave the others waiting in their next collective: with more than
// one rank the failure names the rank and ends every rank through MPI_Abort with the same code
// (mpirun then exits with it). A single process prints and returns the code as before.
int fail(int code, const std::string& message) {
  if (mpi::size() > 1) {
    std::cerr << "error (rank " << mpi::rank() << " of " << mpi::size() << "): " << message << std::endl;
    mpi::abort_all(code);
  }
  std::cerr << "error: " << message << "\n";
  return code;
}
}  // namespace

int guarded_main(const std::function<int()>& body) {
  try {
    return body();
  } catch (const InputError& e) {
    return fail(exit_bad_input, e.what());
  } catch (const RuntimeError& e) {
    return fail(exit_runtime_failure, e.what());
  } catch (const std::bad_alloc&) {
    return fail(exit_runtime_failure, "out of host memory (an allocation failed)");
  } catch (const std::exception& e) {
    return fail(exit_runtime_failure, e.what());
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
