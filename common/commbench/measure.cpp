#include <algorithm>
#include <memory>

#include "commbench.hpp"
#include "copa/mpi.hpp"
#include "copa/stats.hpp"
#include "copa/timing.hpp"
#include "copa/gpu_model.hpp"
#if COPA_GPU
#include "copa/gpu.hpp"
#endif

namespace copa::commbench {

Footprint footprint(std::int64_t field_elements, std::int64_t message_elements, halo::Memory memory) {
  // Field, packed send and receive buffers, and the plan's four index arrays (int64 per element:
  // gather source, scatter target, CSR begin, position), in the memory of the field; pinned
  // staging of the host transport beside it; the links' index lists and the plan on the host.
  const auto d = sizeof(double);
  const std::size_t field = static_cast<std::size_t>(field_elements) * d;
  const std::size_t messages = static_cast<std::size_t>(message_elements) * d;
  const std::size_t plan = 4 * messages;
  Footprint f;
  f.host = messages + plan + (memory == halo::Memory::host ? field + messages : 2 * messages);
  if (memory == halo::Memory::device) f.device = field + messages + plan;
  return f;
}

Timing time_exchanges(const std::vector<std::vector<halo::Link>>& exchanges, std::int64_t field_elements,
                      halo::Transport transport, halo::Memory memory, int warmup, int reps) {
  std::vector<double> host(static_cast<std::size_t>(field_elements));
  for (std::size_t i = 0; i < host.size(); ++i) host[i] = static_cast<double>(i);
  double* field = host.data();
  void* stream = nullptr;
#if COPA_GPU
  gpu::stream_t s{};
  if (memory == halo::Memory::device) {
    s = gpu::create_stream();
    stream = s;
    field = static_cast<double*>(gpu::malloc_device(std::max<std::size_t>(host.size(), 1) * sizeof(double)));
    gpu::copy_to_device(field, host.data(), host.size() * sizeof(double), s);
  }
#endif
  Timing t;
  {
    std::vector<std::unique_ptr<halo::Exchange>> xs;
    for (const auto& links : exchanges)
      xs.push_back(std::make_unique<halo::Exchange>(links, halo::FieldLayout{}, transport, memory,
                                                    halo::Combine::replace, stream));
    t.bytes_per_direction = xs.front()->bytes_sent();
    auto complete = [&] {
#if COPA_GPU
      if (memory == halo::Memory::device) gpu::synchronize(s);
#endif
    };
    std::vector<double> samples;
    for (int r = 0; r < warmup + reps; ++r) {
      mpi::barrier();
      const double t0 = host_seconds();
      for (auto& x : xs) x->run(field);
      complete();
      const double dt = host_seconds() - t0;
      if (r >= warmup) samples.push_back(dt);
    }
    t.median_s = summarize(mpi::max_all(samples)).median;
  }
#if COPA_GPU
  if (memory == halo::Memory::device) {
    gpu::free_device(field);
    gpu::destroy_stream(s);
  }
#endif
  return t;
}

}  // namespace copa::commbench
