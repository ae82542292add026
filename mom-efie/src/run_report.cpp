#include "run_report.hpp"

#include "kernels.hpp"

namespace efie {

copa::Report start_report(const copa::CommonOptions& common, copa::Backend backend, const std::string& variant,
                          int threads, int device, int argc, char** argv) {
  copa::Report report("mom-efie", "1.0");
  report.set_backend(backend);
  report.set_variant(variant);
  report.set_threads(threads);
  report.set_device(device);
  report.set_ceilings(copa::run_ceilings(common, backend, device));
  report.set_command_line(copa::command_line(argc, argv));
  nlohmann::json built;
  for (auto b : copa::built_backends()) built[copa::to_string(b)] = variants(b);
  report.set_variants_built(built);
  return report;
}

}  // namespace efie
