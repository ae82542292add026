// Runs one exchange on a host vector for the halo tests: directly for host fields, or through a
// device copy of it (copied to the GPU, exchanged there, copied back) for device fields.
#pragma once
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "copa/halo.hpp"
#include "copa/gpu_model.hpp"
#if COPA_GPU
#include "copa/gpu.hpp"
#endif

namespace copa::halo::testing {

inline Memory memory_named(const std::string& name) { return name == "device" ? Memory::device : Memory::host; }

#if COPA_GPU
// Runs body(d, stream) on a device copy d of `field` (copied in before, back after, on a stream
// of its own); the exchange inside body is destroyed before the copy back.
template <class Body>
void on_device_copy(std::vector<double>& field, Body body) {
  const std::size_t bytes = field.size() * sizeof(double);
  gpu::stream_t stream = gpu::create_stream();
  auto* d = static_cast<double*>(gpu::malloc_device(bytes == 0 ? 8 : bytes));
  gpu::copy_to_device(d, field.data(), bytes, stream);
  body(d, stream);
  gpu::copy_to_host(field.data(), d, bytes, stream);
  gpu::free_device(d);
  gpu::destroy_stream(stream);
}
#endif

// Between start() and finish() of each step, `overwrite` (when not empty) replaces the field's
// first overwrite.size() elements, as work the caller enqueues there would: on the exchange's
// stream for device fields.
inline void exchange_on(std::vector<double>& field, const std::vector<Link>& links, FieldLayout layout,
                        Transport transport, Memory memory, Combine combine, int steps = 1,
                        const std::vector<double>& overwrite = {}) {
  if (memory == Memory::host) {
    Exchange x(links, layout, transport, memory, combine);
    for (int s = 0; s < steps; ++s) {
      x.start(field.data());
      std::copy(overwrite.begin(), overwrite.end(), field.begin());
      x.finish(field.data());
    }
    return;
  }
#if COPA_GPU
  on_device_copy(field, [&](double* d, gpu::stream_t stream) {
    Exchange x(links, layout, transport, memory, combine, stream);
    for (int s = 0; s < steps; ++s) {
      x.start(d);
      if (!overwrite.empty()) gpu::copy_to_device(d, overwrite.data(), overwrite.size() * sizeof(double), stream);
      x.finish(d);
    }
  });
#endif
}

// One exchange whose sent values are produced after fork(): the field first holds `stale` in place
// of its first produced.size() elements; the produced values are written on the stream fork()
// returns (on the host for host fields, where fork() returns null) before start(), as a caller's
// boundary elements would be. The pack must see them, and the unpack must follow that stream.
inline void exchange_forked(std::vector<double>& field, const std::vector<double>& produced, double stale,
                            const std::vector<Link>& links, FieldLayout layout, Transport transport, Memory memory,
                            Combine combine) {
  std::fill(field.begin(), field.begin() + static_cast<std::ptrdiff_t>(produced.size()), stale);
  if (memory == Memory::host) {
    Exchange x(links, layout, transport, memory, combine);
    if (x.fork() != nullptr) throw std::logic_error("fork() of a host field returned a stream");
    std::copy(produced.begin(), produced.end(), field.begin());
    x.start(field.data());
    x.finish(field.data());
    return;
  }
#if COPA_GPU
  on_device_copy(field, [&](double* d, gpu::stream_t stream) {
    Exchange x(links, layout, transport, memory, combine, stream);
    auto forked = static_cast<gpu::stream_t>(x.fork());
    if (forked == nullptr || forked == stream) throw std::logic_error("fork() of a device field gave no stream of its own");
    gpu::copy_to_device(d, produced.data(), produced.size() * sizeof(double), forked);
    x.start(d);
    x.finish(d);
  });
#endif
}

}  // namespace copa::halo::testing
