#include "copa/memory.hpp"

#include <algorithm>

namespace copa {

CountingResource::CountingResource(std::pmr::memory_resource* upstream) : upstream_(upstream) {}

MemoryCounters CountingResource::counters() const {
  return {current_.load(), peak_.load(), allocations_.load(), deallocations_.load()};
}

void* CountingResource::do_allocate(std::size_t bytes, std::size_t alignment) {
  void* p = upstream_->allocate(bytes, alignment);
  const std::size_t now = current_.fetch_add(bytes) + bytes;
  std::size_t peak = peak_.load();
  while (now > peak && !peak_.compare_exchange_weak(peak, now)) {
  }
  ++allocations_;
  return p;
}

void CountingResource::do_deallocate(void* p, std::size_t bytes, std::size_t alignment) {
  upstream_->deallocate(p, bytes, alignment);
  current_.fetch_sub(bytes);
  ++deallocations_;
}

bool CountingResource::do_is_equal(const std::pmr::memory_resource& other) const noexcept {
  return this == &other;
}

namespace {
// Blocks up to 4 MB are kept and reused between steps (small temporaries, per-step work arrays);
// larger arrays go straight to the system, where reuse would buy nothing against their fill time.
std::pmr::pool_options host_pool_options() {
  std::pmr::pool_options o;
  o.largest_required_pool_block = std::size_t(4) << 20;
  return o;
}
}  // namespace

HostPool::HostPool()
    : upstream_(std::pmr::new_delete_resource()), pool_(host_pool_options(), &upstream_), counting_(&pool_) {}

void* HostPool::do_allocate(std::size_t bytes, std::size_t alignment) {
  return counting_.allocate(bytes, alignment);
}

void HostPool::do_deallocate(void* p, std::size_t bytes, std::size_t alignment) {
  counting_.deallocate(p, bytes, alignment);
}

bool HostPool::do_is_equal(const std::pmr::memory_resource& other) const noexcept { return this == &other; }

HostPool& host_pool() {
  static HostPool pool;
  return pool;
}

}  // namespace copa
