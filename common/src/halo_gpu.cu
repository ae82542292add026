#include "halo_combine.hpp"
#include "halo_kernels.hpp"

namespace copa::halo::detail {

namespace {

constexpr unsigned threads_per_block = 256;

__global__ void gather_kernel(const double* __restrict__ field, const std::int64_t* __restrict__ source,
                              double* __restrict__ buffer, std::int64_t count) {
  const std::int64_t k = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (k < count) buffer[k] = field[source[k]];
}

__global__ void scatter_kernel(double* __restrict__ field, const std::int64_t* __restrict__ target,
                               const std::int64_t* __restrict__ begin, const std::int64_t* __restrict__ position,
                               const std::int64_t* __restrict__ below, const double* __restrict__ buffer,
                               std::int64_t destinations, Combine combine) {
  const std::int64_t d = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (d >= destinations) return;
  field[target[d]] = combined_value(combine, field[target[d]], buffer, position, begin[d], begin[d + 1], below[d]);
}

}  // namespace

void gather_on_device(const double* field, const std::int64_t* source, double* buffer, std::int64_t count,
                      gpu::stream_t stream) {
  if (count == 0) return;
  gather_kernel<<<gpu::blocks_for(static_cast<std::size_t>(count), threads_per_block), threads_per_block, 0,
                  stream>>>(field, source, buffer, count);
  COPA_GPU_CHECK_LAUNCH("halo gather");
}

void scatter_on_device(double* field, const std::int64_t* target, const std::int64_t* begin,
                       const std::int64_t* position, const std::int64_t* below, const double* buffer,
                       std::int64_t destinations, Combine combine, gpu::stream_t stream) {
  if (destinations == 0) return;
  scatter_kernel<<<gpu::blocks_for(static_cast<std::size_t>(destinations), threads_per_block), threads_per_block,
                   0, stream>>>(field, target, begin, position, below, buffer, destinations, combine);
  COPA_GPU_CHECK_LAUNCH("halo scatter");
}

}  // namespace copa::halo::detail
