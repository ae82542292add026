#include "copa/machine.hpp"

#include <unistd.h>

#include <ctime>
#include <fstream>
#include <string>
#include <thread>

#include "copa/build_config.hpp"
#include "copa/git_info.hpp"
#include "copa/topology.hpp"
#include "copa/gpu_model.hpp"
#if COPA_GPU
#include "copa/gpu.hpp"
#endif

namespace copa {

namespace {

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(' ', colon + 1));
    }
  }
  return "unknown";
}

std::string host_name() {
  char buf[256] = {0};
  if (gethostname(buf, sizeof buf - 1) != 0) return "unknown";
  return buf;
}

}  // namespace

std::string git_sha() { return COPA_GIT_SHA; }

nlohmann::json build_info() {
  nlohmann::json backends = nlohmann::json::array();
  for (Backend b : built_backends()) backends.push_back(to_string(b));
  return {{"compiler", COPA_CXX_COMPILER},
          {"compiler_version", COPA_CXX_COMPILER_VERSION},
          {"flags", COPA_CXX_FLAGS},
          {"build_type", COPA_BUILD_TYPE},
          {"cuda_version", COPA_CUDA_VERSION},
          {"cuda_flags", COPA_CUDA_FLAGS},
          {"cuda_architectures", COPA_CUDA_ARCHITECTURES},
          {"hip_version", COPA_HIP_VERSION},
          {"hip_architectures", COPA_HIP_ARCHITECTURES},
          {"mpi", COPA_MPI_VERSION},
          {"backends", backends},
          {"git_sha", COPA_GIT_SHA},
          {"git_dirty", COPA_GIT_DIRTY}};
}

std::string gpu_name([[maybe_unused]] int device) {
#if COPA_GPU
  if (device >= 0 && device < gpu::device_count()) return gpu::device_info(device).name;
#endif
  return "";
}

nlohmann::json machine_info(Backend backend, [[maybe_unused]] int device) {
  nlohmann::json m = {{"host", host_name()},
                      {"cpu", cpu_model()},
                      {"cores", std::thread::hardware_concurrency()},
                      {"topology", cpu_topology()},
                      {"gpu", nullptr}};
#if COPA_GPU
  if (is_gpu(backend) && device >= 0 && device < gpu::device_count()) {
    const gpu::DeviceInfo d = gpu::device_info(device);
    m["gpu"] = {{"name", d.name},
                {"ordinal", d.ordinal},
                {"runtime", gpu::runtime_name()},
                {"driver_version", d.driver_version},
                {"runtime_version", d.runtime_version},
                {"multiprocessors", d.multiprocessors},
                {"compute_capability", std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor)},
                {"memory_bytes", d.global_memory_bytes},
                {"l2_bytes", d.l2_bytes}};
  }
#else
  (void)backend;
#endif
  return m;
}

std::string iso_date_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace copa
