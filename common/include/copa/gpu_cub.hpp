// The vendor's device-wide primitives (scans, radix sorts) under one name for the apps' .cu files:
// CUB on CUDA, hipCUB on HIP where it is installed (ROCm ships it separately). COPA_HAVE_GPU_CUB is
// defined where they exist; a HIP build without hipCUB keeps each app's own fallback.
#pragma once

#if defined(COPA_HAVE_CUDA)
#include <cub/cub.cuh>
#define COPA_HAVE_GPU_CUB 1
namespace copa {
namespace gpu_cub = ::cub;
}
#elif defined(COPA_HAVE_HIP) && __has_include(<hipcub/hipcub.hpp>)
#include <hipcub/hipcub.hpp>
#define COPA_HAVE_GPU_CUB 1
namespace copa {
namespace gpu_cub = ::hipcub;
}
#endif
