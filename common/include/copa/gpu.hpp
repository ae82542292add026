// The minimal GPU runtime API of copa, mapped to CUDA or HIP from one source.
// Include it from the .cu kernel files (compiled as CUDA or as HIP) and from host code of a
// GPU build. Every runtime call goes through COPA_GPU_CHECK and every launch is followed by
// COPA_GPU_CHECK_LAUNCH, which turn errors into copa::GpuError carrying the call, file and line.
#pragma once
#if !defined(COPA_HAVE_CUDA) && !defined(COPA_HAVE_HIP)
#error "copa/gpu.hpp needs a GPU build (COPA_HAVE_CUDA or COPA_HAVE_HIP)"
#endif

#include <cstddef>
#include <string>

#include "copa/errors.hpp"

#if defined(COPA_HAVE_CUDA)
#if defined(__CUDACC__)
#include <cuda_runtime.h>
#else
#include <cuda_runtime_api.h>
#endif
#define COPA_GPU_SYMBOL(x) cuda##x
#else
#if defined(__HIPCC__)
#include <hip/hip_runtime.h>
#else
#include <hip/hip_runtime_api.h>
#endif
#define COPA_GPU_SYMBOL(x) hip##x
#endif

// Warp (wavefront) width: 32 on NVIDIA, 64 on the CDNA GPUs (gfx90a) the HIP build targets.
#if defined(COPA_HAVE_HIP)
#define COPA_WARP_SIZE 64
#else
#define COPA_WARP_SIZE 32
#endif

#define COPA_GPU_CHECK(call) ::copa::gpu::check((call), #call, __FILE__, __LINE__)
#define COPA_GPU_CHECK_LAUNCH(kernel_name) ::copa::gpu::check_launch((kernel_name), __FILE__, __LINE__)

namespace copa {

class GpuError : public RuntimeError {
 public:
  GpuError(const std::string& call, const std::string& message, const char* file, int line);
  const std::string& call() const { return call_; }
  const std::string& file() const { return file_; }
  int line() const { return line_; }

 private:
  std::string call_, file_;
  int line_;
};

namespace gpu {

using error_t = COPA_GPU_SYMBOL(Error_t);
using stream_t = COPA_GPU_SYMBOL(Stream_t);
using event_t = COPA_GPU_SYMBOL(Event_t);

const char* runtime_name();  // "CUDA" or "HIP"

[[noreturn]] void fail(error_t code, const char* call, const char* file, int line);
inline void check(error_t code, const char* call, const char* file, int line) {
  if (code != COPA_GPU_SYMBOL(Success)) fail(code, call, file, line);
}
// After a launch: configuration errors at once; with COPA_GPU_SYNC_LAUNCH=1 in the environment
// it also synchronises, so that a faulting kernel is named by the launch that ran it, except while
// this thread holds a CaptureScope (a synchronisation is not allowed while a stream captures a
// graph; the graph's launch is checked instead).
void check_launch(const char* kernel_name, const char* file, int line);
// Held while this thread's launches are captured into a graph (nests).
class CaptureScope {
 public:
  CaptureScope();
  ~CaptureScope();
  CaptureScope(const CaptureScope&) = delete;
  CaptureScope& operator=(const CaptureScope&) = delete;
};

struct DeviceInfo {
  std::string name;
  int ordinal = 0;
  int multiprocessors = 0;
  int warp_size = 0;
  int cc_major = 0, cc_minor = 0;
  std::size_t global_memory_bytes = 0;
  std::size_t l2_bytes = 0;
  std::size_t shared_per_block_optin = 0;
  int driver_version = 0, runtime_version = 0;
};
struct MemInfo {
  std::size_t free = 0, total = 0;
};

int device_count();  // 0 when there is no device or no driver (never throws)
void set_device(int ordinal);
// Whether set_device ran in this process: until then every process is on the runtime's default
// device 0, whatever GPU its rank will be bound to (the halo layer's nccl check needs the binding).
bool device_was_set();
int current_device();
DeviceInfo device_info(int ordinal);
MemInfo mem_info();
// Throws OutOfMemoryError (exit 3) with the estimate when bytes do not fit in free device memory.
void require_device_memory(std::size_t bytes, const std::string& what);

void synchronize();
void synchronize(stream_t stream);
stream_t create_stream();
// A non-blocking stream of the device's highest priority: the block scheduler gives its blocks
// the next free multiprocessors ahead of those of normal streams' kernels already running (short
// work that others wait for, beside a long kernel: the halo layer's pack and boundary elements).
stream_t create_priority_stream();
void destroy_stream(stream_t stream);

void* malloc_device(std::size_t bytes);
void free_device(void* ptr);
void* malloc_pinned(std::size_t bytes);
void free_pinned(void* ptr);
// Pinned host memory mapped into the device's address space: a kernel stores into it through
// device_pointer(ptr) and the host reads ptr after a synchronisation, with no copy to queue (a
// few words of results: one launch instead of a kernel and a copy). free_mapped releases it.
void* malloc_mapped(std::size_t bytes);
void free_mapped(void* ptr);
void* device_pointer(void* mapped);
void copy_to_device(void* dst, const void* src, std::size_t bytes, stream_t stream = nullptr);
void copy_to_host(void* dst, const void* src, std::size_t bytes, stream_t stream = nullptr);
void copy_on_device(void* dst, const void* src, std::size_t bytes, stream_t stream = nullptr);
void fill_zero(void* dst, std::size_t bytes, stream_t stream = nullptr);

inline unsigned blocks_for(std::size_t n, unsigned threads) {
  return static_cast<unsigned>((n + threads - 1) / threads);
}

// A block may use more than 48 KB of dynamic shared memory only after this (CUDA and HIP).
template <class Kernel>
void set_max_dynamic_shared(Kernel kernel, int bytes) {
  COPA_GPU_CHECK(COPA_GPU_SYMBOL(FuncSetAttribute)(reinterpret_cast<const void*>(kernel),
                                                   COPA_GPU_SYMBOL(FuncAttributeMaxDynamicSharedMemorySize),
                                                   bytes));
}

#if defined(__CUDACC__) || defined(__HIPCC__)
// Device helpers with the same spelling in both runtimes.
template <class T>
__device__ inline T shfl_down(T value, int offset) {
#if defined(COPA_HAVE_HIP)
  return __shfl_down(value, offset);
#else
  return __shfl_down_sync(0xffffffffu, value, offset);
#endif
}
template <class T>
__device__ inline T shfl_xor(T value, int mask) {
#if defined(COPA_HAVE_HIP)
  return __shfl_xor(value, mask);
#else
  return __shfl_xor_sync(0xffffffffu, value, mask);
#endif
}
template <class T>
__device__ inline T warp_sum(T value) {
  for (int offset = COPA_WARP_SIZE / 2; offset > 0; offset /= 2) value += shfl_down(value, offset);
  return value;
}
template <class T>
__device__ inline T warp_max(T value) {
  for (int offset = COPA_WARP_SIZE / 2; offset > 0; offset /= 2) {
    const T other = shfl_down(value, offset);
    value = other > value ? other : value;
  }
  return value;
}
#endif

}  // namespace gpu
}  // namespace copa
