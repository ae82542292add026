// The device pool: cudaMallocFromPoolAsync / hipMallocFromPoolAsync on a memory pool whose
// release threshold is "keep everything", so buffers freed at the end of a step are reused by the
// next without returning to the driver. DeviceArray<T> owns one allocation from it.
#pragma once
#include <cstddef>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>

#include "copa/gpu.hpp"
#include "copa/memory.hpp"

namespace copa::gpu {

class DevicePool {
 public:
  explicit DevicePool(int device);
  ~DevicePool();
  DevicePool(const DevicePool&) = delete;
  DevicePool& operator=(const DevicePool&) = delete;

  void* allocate(std::size_t bytes, stream_t stream = nullptr);
  void deallocate(void* ptr, stream_t stream = nullptr);
  MemoryCounters counters() const;
  // Returns the memory the pool keeps to the driver (after synchronising).
  void trim();

 private:
  int device_;
  COPA_GPU_SYMBOL(MemPool_t) pool_{};
  mutable std::mutex mutex_;
  std::unordered_map<void*, std::size_t> sizes_;
  MemoryCounters counters_;
};

// The pool of the current device (created on first use).
DevicePool& device_pool();
// Counters of the current device's pool, or zeros when none was created.
MemoryCounters device_pool_counters();

template <class T>
class DeviceArray {
 public:
  DeviceArray() = default;
  explicit DeviceArray(std::size_t n, stream_t stream = nullptr) : n_(n), stream_(stream) {
    if (n_ > 0) ptr_ = static_cast<T*>(device_pool().allocate(n_ * sizeof(T), stream_));
  }
  ~DeviceArray() { release(); }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  DeviceArray(DeviceArray&& o) noexcept { swap(o); }
  DeviceArray& operator=(DeviceArray&& o) noexcept {
    if (this != &o) {
      release();
      swap(o);
    }
    return *this;
  }

  T* data() { return ptr_; }
  const T* data() const { return ptr_; }
  std::size_t size() const { return n_; }
  std::size_t bytes() const { return n_ * sizeof(T); }

  void copy_from_host(const T* host, stream_t stream = nullptr) { copy_to_device(ptr_, host, bytes(), stream); }
  void copy_to_host(T* host, stream_t stream = nullptr) const { gpu::copy_to_host(host, ptr_, bytes(), stream); }

 private:
  void release() {
    if (ptr_) device_pool().deallocate(ptr_, stream_);
    ptr_ = nullptr;
    n_ = 0;
  }
  void swap(DeviceArray& o) noexcept {
    std::swap(ptr_, o.ptr_);
    std::swap(n_, o.n_);
    std::swap(stream_, o.stream_);
  }
  T* ptr_ = nullptr;
  std::size_t n_ = 0;
  stream_t stream_ = nullptr;
};

}  // namespace copa::gpu
