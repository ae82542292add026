// The launch shape the GPU backend's kernels share (kernels_gpu.cu and src/gpu/*.cuh).
#pragma once
#include "copa/device_memory.hpp"
#include "copa/gpu.hpp"

namespace mps::gpu {

using copa::gpu::DeviceArray;
using copa::gpu::blocks_for;
constexpr unsigned kThreads = 256;     // every particle-parallel launch
constexpr unsigned kScanBlock = 1024;  // the counting sort's block scan

}  // namespace mps::gpu
