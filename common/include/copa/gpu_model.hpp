// The one place that says whether this build has a GPU programming model. The rest of the code
// tests `#if COPA_GPU` (host code that calls into a GPU backend, GPU-only declarations) instead of
// naming CUDA and HIP, so a further model (SYCL, OpenMP offload) is added here and in the build files.
// Inside device code compiled by nvcc or hipcc, copa/gpu.hpp still chooses the runtime API.
#pragma once

#if defined(COPA_HAVE_CUDA) || defined(COPA_HAVE_HIP)
#define COPA_GPU 1
#else
#define COPA_GPU 0
#endif
