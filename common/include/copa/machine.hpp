// What a result needs to say about where and how it was produced: the build (compiler, flags,
// CUDA/HIP versions, git sha) and the machine (host, CPU, GPU, driver).
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "copa/backend.hpp"

namespace copa {

nlohmann::json build_info();
// The machine: host, CPU model, cores, the CPU topology (copa/topology.hpp: sockets, NUMA nodes,
// caches), and the GPU section when backend is a GPU backend (device = ordinal).
nlohmann::json machine_info(Backend backend, int device);
std::string gpu_name(int device);  // "" when no GPU backend or device
std::string iso_date_now();
std::string git_sha();

}  // namespace copa
