// Host side of copa/gpu.hpp: checked wrappers of the CUDA or HIP runtime (one source).
#include "copa/gpu.hpp"

#include <cstdlib>
#include <sstream>

namespace copa {

GpuError::GpuError(const std::string& call, const std::string& message, const char* file, int line)
    : RuntimeError(std::string(gpu::runtime_name()) + " error in " + call + " at " + file + ":" +
                   std::to_string(line) + ": " + message),
      call_(call),
      file_(file),
      line_(line) {}

namespace gpu {

const char* runtime_name() {
#if defined(COPA_HAVE_CUDA)
  return "CUDA";
#else
  return "HIP";
#endif
}

void fail(error_t code, const char* call, const char* file, int line) {
  std::ostringstream msg;
  msg << COPA_GPU_SYMBOL(GetErrorName)(code) << " (" << static_cast<int>(code)
      << "): " << COPA_GPU_SYMBOL(GetErrorString)(code);
  throw GpuError(call, msg.str(), file, line);
}

namespace {
thread_local int captures = 0;  // CaptureScopes this thread holds
}  // namespace

CaptureScope::CaptureScope() { ++captures; }
CaptureScope::~CaptureScope() { --captures; }

void check_launch(const char* kernel_name, const char* file, int line) {
  const std::string call = std::string("launch of ") + kernel_name;
  check(COPA_GPU_SYMBOL(GetLastError)(), call.c_str(), file, line);
  static const bool sync_each = [] {
    const char* v = std::getenv("COPA_GPU_SYNC_LAUNCH");
    return v != nullptr && std::string(v) == "1";
  }();
  if (sync_each && captures == 0) check(COPA_GPU_SYMBOL(DeviceSynchronize)(), call.c_str(), file, line);
}

int device_count() {
  int n = 0;
  if (COPA_GPU_SYMBOL(GetDeviceCount)(&n) != COPA_GPU_SYMBOL(Success)) {
    (void)COPA_GPU_SYMBOL(GetLastError)();  // clear the sticky "no device" error
    return 0;
  }
  return n;
}

namespace {
bool device_set = false;
}

void set_device(int ordinal) {
  COPA_GPU_CHECK(COPA_GPU_SYMBOL(SetDevice)(ordinal));
  device_set = true;
}

bool device_was_set() { return device_set; }

int current_device() {
  int d = 0;
  COPA_GPU_CHECK(COPA_GPU_SYMBOL(GetDevice)(&d));
  return d;
}

DeviceInfo device_info(int ordinal) {
#if defined(COPA_HAVE_CUDA)
  cudaDeviceProp p{};
#else
  hipDeviceProp_t p{};
#endif
  COPA_GPU_CHECK(COPA_GPU_SYMBOL(GetDeviceProperties)(&p, ordinal));
  DeviceInfo info;
  info.name = p.name;
  info.ordinal = ordinal;
  info.multiprocessors = p.multiProcessorCount;
  info.warp_size = p.warpSize;
  info.cc_major = p.major;
  info.cc_minor = p.minor;
  info.global_memory_bytes = p.totalGlobalMem;
  info.l2_bytes = static_cast<std::size_t>(p.l2CacheSize);
#if defined(COPA_HAVE_CUDA)
  info.shared_per_block_optin = p.sharedMemPerBlockOptin;
#else
  info.shared_per_block_optin = p.sharedMemPerBlock;
#endif
  COPA_GPU_CHECK(COPA_GPU_SYMBOL(DriverGetVersion)(&info.driver_version));
  COPA_GPU_CHECK(COPA_GPU_SYMBOL(RuntimeGetVersion)(&info.runtime_version));
  return info;
}

MemInfo mem_info() {
  MemInfo m;
  COPA_GPU_CHECK(COPA_GPU_SYMBOL(MemGetInfo)(&m.free, &m.total));
  return m;
}

void require_device_memory(std::size_t bytes, const std::string& what) {
  // Nothing to allocate: skip the driver query, which costs ~6 us on the H200 machine
  // (cudaMemGetInfo; the AMR regrid calls this ~15 times, mostly for arrays that do not grow).
  if (bytes == 0) return;
  const MemInfo m = mem_info();
  if (bytes > m.free) throw OutOfMemoryError(what, bytes, m.free, "device");
}

void synchronize() { COPA_GPU_CHECK(COPA_GPU_SYMBOL(DeviceSynchronize)()); }
void synchronize(stream_t stream) { COPA_GPU_CHECK(COPA_GPU_SYMBOL(StreamSynchronize)(stream)); }

stream_t create_stream() {
  stream_t s{};
  COPA_GPU_CHECK(COPA_GPU_SYMBOL(StreamCreateWithFlags)(&s, COPA_GPU_SYMBOL(StreamNonBlocking)));
  return s;
}

stream_t create_priority_stream() {
  int least = 0, greatest = 0;  // priorities count down: greatest is the numerically lowest
  COPA_GPU_CHECK(COPA_GPU_SYMBOL(DeviceGetStreamPriorityRange)(&least, &greatest));
  stream_t s{};
  COPA_GPU_CHECK(COPA_GPU_SYMBOL(StreamCreateWithPriority)(&s, COPA_GPU_SYMBOL(StreamNonBlocking), greatest));
  return s;
}

void destroy_stream(stream_t stream) { COPA_GPU_CHECK(COPA_GPU_SYMBOL(StreamDestroy)(stream)); }

void* malloc_device(std::size_t bytes) {
  require_device_memory(bytes, "an allocation");
  void* p = nullptr;
  COPA_GPU_CHECK(COPA_GPU_SYMBOL(Malloc)(&p, bytes));
  return p;
}

void free_device(void* ptr) { COPA_GPU_CHECK(COPA_GPU_SYMBOL(Free)(ptr)); }

void* malloc_pinned(std::size_t bytes) {
  void* p = nullptr;
#if defined(COPA_HAVE_CUDA)
  COPA_GPU_CHECK(cudaMallocHost(&p, bytes));
#else
  COPA_GPU_CHECK(hipHostMalloc(&p, bytes, hipHostMallocDefault));
#endif
  return p;
}

void free_pinned(void* ptr) {
#if defined(COPA_HAVE_CUDA)
  COPA_GPU_CHECK(cudaFreeHost(ptr));
#else
  COPA_GPU_CHECK(hipHostFree(ptr));
#endif
}

void* malloc_mapped(std::size_t bytes) {
  void* p = nullptr;
#if defined(COPA_HAVE_CUDA)
  COPA_GPU_CHECK(cudaHostAlloc(&p, bytes, cudaHostAllocMapped));
#else
  COPA_GPU_CHECK(hipHostMalloc(&p, bytes, hipHostMallocMapped));
#endif
  return p;
}

void free_mapped(void* ptr) { free_pinned(ptr); }

void* device_pointer(void* mapped) {
  void* d = nullptr;
  COPA_GPU_CHECK(COPA_GPU_SYMBOL(HostGetDevicePointer)(&d, mapped, 0));
  return d;
}

void copy_to_device(void* dst, const void* src, std::size_t bytes, stream_t stream) {
  COPA_GPU_CHECK(COPA_GPU_SYMBOL(MemcpyAsync)(dst, src, bytes, COPA_GPU_SYMBOL(MemcpyHostToDevice), stream));
}

void copy_to_host(void* dst, const void* src, std::size_t bytes, stream_t stream) {
  COPA_GPU_CHECK(COPA_GPU_SYMBOL(MemcpyAsync)(dst, src, bytes, COPA_GPU_SYMBOL(MemcpyDeviceToHost), stream));
  COPA_GPU_CHECK(COPA_GPU_SYMBOL(StreamSynchronize)(stream));
}

void copy_on_device(void* dst, const void* src, std::size_t bytes, stream_t stream) {
  COPA_GPU_CHECK(COPA_GPU_SYMBOL(MemcpyAsync)(dst, src, bytes, COPA_GPU_SYMBOL(MemcpyDeviceToDevice), stream));
}

void fill_zero(void* dst, std::size_t bytes, stream_t stream) {
  COPA_GPU_CHECK(COPA_GPU_SYMBOL(MemsetAsync)(dst, 0, bytes, stream));
}

}  // namespace gpu
}  // namespace copa
