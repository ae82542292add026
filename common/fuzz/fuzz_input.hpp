// The fuzz targets' shared piece: an input handed to a reader that takes a path (the config file
// reader, the Gmsh reader) through a file of this process's own.
#pragma once
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <string>

namespace copa::fuzz {

inline std::string input_file(const uint8_t* data, size_t size, const char* suffix) {
  const std::string path = "/tmp/copa-fuzz-" + std::to_string(getpid()) + suffix;
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(data),
                                                                static_cast<std::streamsize>(size));
  return path;
}

}  // namespace copa::fuzz
