// The programming models a copa executable can be built with.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace copa {

enum class Backend { serial, openmp, cuda, hip };

std::string to_string(Backend b);
std::optional<Backend> parse_backend(std::string_view name);
bool is_gpu(Backend b);

// Backends compiled into this build, serial first (it is the oracle).
std::vector<Backend> built_backends();
bool is_built(Backend b);

// The default for --backend: the GPU backend when built, else openmp, else serial.
Backend default_backend();

}  // namespace copa
