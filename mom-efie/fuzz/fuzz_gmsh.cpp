// libFuzzer target of the Gmsh reader and the mesh checks (efie::read_gmsh, check_mesh): any file
// is read or refused with InputError (exit 2); a crash, a sanitizer report, a hang or any other
// exception is a finding. Replayed in the ordinary builds by common/fuzz/replay_main.cpp.
#include <cstdio>
#include <string>

#include "../../common/fuzz/fuzz_input.hpp"
#include "copa/errors.hpp"
#include "mesh.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = copa::fuzz::input_file(data, size, ".msh");
  try {
    const efie::Mesh mesh = efie::read_gmsh(path);
    efie::check_mesh(mesh);
  } catch (const copa::InputError&) {
  }
  std::remove(path.c_str());
  return 0;
}
