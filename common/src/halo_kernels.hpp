// The two kernels of a device halo exchange (halo_gpu.cu, compiled as CUDA or HIP): one gather
// packs every outgoing element of every link and component, one scatter unpacks every received one.
#pragma once
#include <cstdint>

#include "copa/gpu.hpp"
#include "copa/halo.hpp"

namespace copa::halo::detail {

// buffer[k] = field[source[k]] for k < count.
void gather_on_device(const double* field, const std::int64_t* source, double* buffer, std::int64_t count,
                      gpu::stream_t stream);

// For each destination d < destinations: the buffer positions received for field[target[d]] are
// position[begin[d]] .. position[begin[d+1]-1], in ascending peer order, the first below[d] of them
// from lower ranks; the element takes combined_value (halo_combine.hpp). One thread per
// destination element, so that the additions to one element happen in a fixed order (no atomics).
void scatter_on_device(double* field, const std::int64_t* target, const std::int64_t* begin,
                       const std::int64_t* position, const std::int64_t* below, const double* buffer,
                       std::int64_t destinations, Combine combine, gpu::stream_t stream);

}  // namespace copa::halo::detail
