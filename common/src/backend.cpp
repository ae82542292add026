#include "copa/backend.hpp"

#include <algorithm>

namespace copa {

std::string to_string(Backend b) {
  switch (b) {
    case Backend::serial: return "serial";
    case Backend::openmp: return "openmp";
    case Backend::cuda: return "cuda";
    case Backend::hip: return "hip";
  }
  return "unknown";
}

std::optional<Backend> parse_backend(std::string_view name) {
  for (Backend b : {Backend::serial, Backend::openmp, Backend::cuda, Backend::hip})
    if (name == to_string(b)) return b;
  return std::nullopt;
}

bool is_gpu(Backend b) { return b == Backend::cuda || b == Backend::hip; }

std::vector<Backend> built_backends() {
  std::vector<Backend> list{Backend::serial};
#if defined(COPA_HAVE_OPENMP)
  list.push_back(Backend::openmp);
#endif
#if defined(COPA_HAVE_CUDA)
  list.push_back(Backend::cuda);
#endif
#if defined(COPA_HAVE_HIP)
  list.push_back(Backend::hip);
#endif
  return list;
}

bool is_built(Backend b) {
  const auto list = built_backends();
  return std::find(list.begin(), list.end(), b) != list.end();
}

Backend default_backend() { return built_backends().back(); }

}  // namespace copa
