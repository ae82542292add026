// Errors and exit codes shared by every copa executable (docs/CONVENTIONS.md, "Exit codes"):
// 0 ok, 1 verification failed, 2 bad input, 3 runtime failure.
#pragma once
#include <cstddef>
#include <functional>
#include <stdexcept>
#include <string>

namespace copa {

inline constexpr int exit_ok = 0;
inline constexpr int exit_verification_failed = 1;
inline constexpr int exit_bad_input = 2;
inline constexpr int exit_runtime_failure = 3;

// Bad input: the message names the option and why (exit code 2).
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A failure while running: device error, numerical breakdown, out of memory (exit code 3).
class RuntimeError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A problem that does not fit: carries the estimate and what is available.
class OutOfMemoryError : public RuntimeError {
 public:
  OutOfMemoryError(const std::string& what, std::size_t needed_bytes, std::size_t available_bytes,
                   const std::string& where);
  std::size_t needed() const { return needed_; }
  std::size_t available() const { return available_; }

 private:
  std::size_t needed_, available_;
};

// Human-readable byte count ("14.40 GB").
std::string format_bytes(double bytes);

// Runs body and maps exceptions to the exit codes above, printing "error: ..." on stderr. In a run
// of several MPI ranks a failing rank prints "error (rank r of n): ..." and calls MPI_Abort with
// the code, so that no other rank hangs.
int guarded_main(const std::function<int()>& body);

// Host memory available to a new allocation (MemAvailable of /proc/meminfo; 0 if unknown).
std::size_t host_memory_available();

// Throws OutOfMemoryError when the estimate exceeds the available host memory.
void require_host_memory(std::size_t bytes, const std::string& what);

}  // namespace copa
