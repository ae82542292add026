#include "copa/device_memory.hpp"

#include <cstdint>
#include <map>
#include <memory>

namespace copa::gpu {

DevicePool::DevicePool(int device) : device_(device) {
  COPA_GPU_CHECK(COPA_GPU_SYMBOL(DeviceGetDefaultMemPool)(&pool_, device_));
  // Keep freed memory in the pool instead of returning it at each synchronisation, so the buffers
  // of one time step are reused by the next at no driver cost.
  std::uint64_t keep_all = UINT64_MAX;
  COPA_GPU_CHECK(COPA_GPU_SYMBOL(MemPoolSetAttribute)(pool_, COPA_GPU_SYMBOL(MemPoolAttrReleaseThreshold), &keep_all));
}

DevicePool::~DevicePool() = default;

void* DevicePool::allocate(std::size_t bytes, stream_t stream) {
  require_device_memory(bytes, "a device pool allocation");
  void* p = nullptr;
  COPA_GPU_CHECK(COPA_GPU_SYMBOL(MallocFromPoolAsync)(&p, bytes, pool_, stream));
  std::lock_guard<std::mutex> lock(mutex_);
  sizes_[p] = bytes;
  counters_.current_bytes += bytes;
  if (counters_.current_bytes > counters_.peak_bytes) counters_.peak_bytes = counters_.current_bytes;
  ++counters_.allocations;
  return p;
}

void DevicePool::deallocate(void* ptr, stream_t stream) {
  // Called from destructors, also while an earlier GPU error unwinds the stack: a failure to free is
  // not reported again here (the first error is the one that matters).
  if (COPA_GPU_SYMBOL(FreeAsync)(ptr, stream) != COPA_GPU_SYMBOL(Success)) (void)COPA_GPU_SYMBOL(GetLastError)();
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = sizes_.find(ptr);
  if (it != sizes_.end()) {
    counters_.current_bytes -= it->second;
    sizes_.erase(it);
  }
  ++counters_.deallocations;
}

MemoryCounters DevicePool::counters() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return counters_;
}

void DevicePool::trim() {
  COPA_GPU_CHECK(COPA_GPU_SYMBOL(DeviceSynchronize)());
  COPA_GPU_CHECK(COPA_GPU_SYMBOL(MemPoolTrimTo)(pool_, 0));
}

namespace {
std::map<int, std::unique_ptr<DevicePool>>& pools() {
  static std::map<int, std::unique_ptr<DevicePool>> p;
  return p;
}
}  // namespace

DevicePool& device_pool() {
  const int d = current_device();
  auto& p = pools()[d];
  if (!p) p = std::make_unique<DevicePool>(d);
  return *p;
}

MemoryCounters device_pool_counters() {
  MemoryCounters total;
  for (auto& [d, p] : pools()) {
    const MemoryCounters c = p->counters();
    total.current_bytes += c.current_bytes;
    total.peak_bytes += c.peak_bytes;
    total.allocations += c.allocations;
    total.deallocations += c.deallocations;
  }
  return total;
}

}  // namespace copa::gpu
