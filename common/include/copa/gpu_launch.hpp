// Programmatic Dependent Launch (PDL) of a chain of small dependent kernels on the default stream.
// Only for .cu translation units (compiled as CUDA or as HIP).
//
// Why: between two dependent kernels the GPU drains the first grid, then launches and schedules the
// second, ~1-3 us per boundary at a few thousand blocks; ramses-oct's AMR regrid is ~33 such kernels
// (kernel times ~207 us of ~313 us of wall time at Sedov 32^3 + 2 levels on the H200). With PDL
// (compute capability 9.0 and newer) the next kernel is launched and its blocks scheduled while the
// previous grid finishes, and the kernel itself waits for the previous grid's completion.
//
// THE RULE: every kernel launched with launch_dependent calls wait_for_prior_grid() as its FIRST
// statement, before it reads or writes any global memory (the write-after-read hazard counts too:
// the previous kernel may still be reading what this one writes). There is no early trigger
// (cudaTriggerProgrammaticLaunchCompletion): the previous grid's blocks trigger implicitly as they
// exit, so the gain is the launch and scheduling overlap alone and a finished grid still means all
// its writes are visible. Since every PDL kernel waits for its predecessor before it can finish,
// completion is transitive down the chain. A launch that does not go through the helper (CUB scans,
// copies, memsets) keeps ordinary stream order, and a PDL kernel after one of them is still correct.
// On HIP, and on CUDA devices older than 9.0, the launch is ordinary and the wait does nothing.
#pragma once

#include <cstddef>
#include <string>
#include <utility>

#include "copa/gpu.hpp"

#if !defined(__CUDACC__) && !defined(__HIPCC__)
#error "copa/gpu_launch.hpp is for CUDA or HIP translation units"
#endif

// Launches kernel<<<grid, block>>>(args...) on the default stream with PDL, then checks it as
// COPA_GPU_CHECK_LAUNCH(name) does (the kernel's name in the message).
#define COPA_GPU_LAUNCH_DEPENDENT(kernel_name, kernel, grid, block, ...) \
  ::copa::gpu::launch_dependent((kernel_name), __FILE__, __LINE__, (kernel), (grid), (block), 0, __VA_ARGS__)
// The same with shared_bytes of dynamic shared memory per block (kernel<<<grid, block, shared_bytes>>>).
#define COPA_GPU_LAUNCH_DEPENDENT_SHARED(kernel_name, kernel, grid, block, shared_bytes, ...) \
  ::copa::gpu::launch_dependent((kernel_name), __FILE__, __LINE__, (kernel), (grid), (block), (shared_bytes), __VA_ARGS__)

namespace copa::gpu {

__device__ inline void wait_for_prior_grid() {
#if defined(COPA_HAVE_CUDA) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  cudaGridDependencySynchronize();
#endif
}

template <class... Params, class... Args>
void launch_dependent(const char* kernel_name, const char* file, int line, void (*kernel)(Params...), dim3 grid,
                      dim3 block, std::size_t shared_bytes, Args&&... args) {
#if defined(COPA_HAVE_CUDA)
  cudaLaunchAttribute serialization{};
  serialization.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  serialization.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = shared_bytes;
  config.stream = nullptr;  // the default stream, as kernel<<<grid, block>>>
  config.attrs = &serialization;
  config.numAttrs = 1;
  const error_t code = cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...);
  if (code != cudaSuccess) {
    // Reported here, so cleared here: check_launch would take it from cudaGetLastError and the
    // next launch's check must not see it again.
    (void)cudaGetLastError();
    fail(code, (std::string("launch of ") + kernel_name).c_str(), file, line);
  }
#else
  kernel<<<grid, block, shared_bytes>>>(std::forward<Args>(args)...);
#endif
  check_launch(kernel_name, file, line);
}

}  // namespace copa::gpu
