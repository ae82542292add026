// Memory pools with accounting (common/README.md): the host pool is a std::pmr resource,
// the device pool (device_memory.hpp) the stream-ordered allocator. Both count current and peak
// bytes and allocations; the report takes its memory section from them.
#pragma once
#include <atomic>
#include <cstddef>
#include <memory_resource>

namespace copa {

struct MemoryCounters {
  std::size_t current_bytes = 0;
  std::size_t peak_bytes = 0;
  std::size_t allocations = 0;    // calls to allocate since construction
  std::size_t deallocations = 0;
};

// A resource that counts what passes through it to an upstream resource.
class CountingResource : public std::pmr::memory_resource {
 public:
  explicit CountingResource(std::pmr::memory_resource* upstream = std::pmr::new_delete_resource());
  MemoryCounters counters() const;

 private:
  void* do_allocate(std::size_t bytes, std::size_t alignment) override;
  void do_deallocate(void* p, std::size_t bytes, std::size_t alignment) override;
  bool do_is_equal(const std::pmr::memory_resource& other) const noexcept override;

  std::pmr::memory_resource* upstream_;
  std::atomic<std::size_t> current_{0}, peak_{0}, allocations_{0}, deallocations_{0};
};

// The host pool: a synchronized pool (memory is kept for reuse between steps) whose requests are
// counted. Use it for the arrays of a run: std::pmr::vector<double> v(n, &copa::host_pool()).
class HostPool : public std::pmr::memory_resource {
 public:
  HostPool();
  MemoryCounters counters() const { return counting_.counters(); }
  // Bytes the pool holds from the system (what it reuses), not what the program asked for.
  MemoryCounters upstream_counters() const { return upstream_.counters(); }

 private:
  void* do_allocate(std::size_t bytes, std::size_t alignment) override;
  void do_deallocate(void* p, std::size_t bytes, std::size_t alignment) override;
  bool do_is_equal(const std::pmr::memory_resource& other) const noexcept override;

  CountingResource upstream_;
  std::pmr::synchronized_pool_resource pool_;
  CountingResource counting_;
};

HostPool& host_pool();

}  // namespace copa
