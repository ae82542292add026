// The value one destination element of an exchange takes from its own value and the values it
// receives (copa::halo::Combine), written once for the host unpack (halo.cpp) and the device
// scatter kernel (halo_gpu.cu), so that both give the same bits.
#pragma once
#include <cstdint>

#include "copa/halo.hpp"

#if defined(__CUDACC__) || defined(__HIPCC__)
#include "copa/gpu.hpp"  // the runtime header that defines __host__ and __device__
#define COPA_HALO_HD __host__ __device__
#else
#define COPA_HALO_HD
#endif

namespace copa::halo::detail {

// Received values buffer[position[p]], p in [first, last), in ascending peer order; the first
// `below` of them come from lower ranks. replace: the last one; add: own, then each of them;
// add_in_rank_order: those of lower ranks, then own, then the rest, added left to right.
COPA_HALO_HD inline double combined_value(Combine combine, double own, const double* buffer,
                                          const std::int64_t* position, std::int64_t first, std::int64_t last,
                                          std::int64_t below) {
  if (combine == Combine::replace) return buffer[position[last - 1]];
  if (combine == Combine::add || below == 0) {
    double value = own;
    for (std::int64_t p = first; p < last; ++p) value += buffer[position[p]];
    return value;
  }
  double value = buffer[position[first]];
  for (std::int64_t p = first + 1; p < first + below; ++p) value += buffer[position[p]];
  value += own;
  for (std::int64_t p = first + below; p < last; ++p) value += buffer[position[p]];
  return value;
}

}  // namespace copa::halo::detail
