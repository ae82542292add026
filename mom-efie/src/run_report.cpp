#include "run_report.hpp"

#include <cmath>

#include "variants.hpp"

namespace efie {

copa::Report start_report(const copa::CommonOptions& common, copa::Backend backend, const copa::Selection& variant,
                          int threads, int device, int argc, char** argv) {
  copa::Report report("mom-efie", "1.0");
  report.set_backend(backend);
  report.set_selection(variant);
  report.set_threads(threads);
  report.set_device(device);
  report.set_ceilings(copa::run_ceilings(common, backend, device));
  report.set_command_line(copa::command_line(argc, argv));
  report.set_variants_built(registry().built_json());
  return report;
}

void describe_problem(copa::Report& report, const ProblemOptions& options, const Problem& problem, const Formulation& form,
                      double mesh_k_factor, bool fill_only) {
  auto& pj = report.problem();
  pj["geometry"] = options.mesh_file.empty() ? options.geometry : ("mesh " + options.mesh_file);
  pj["size"] = options.size;
  pj["unknowns"] = problem.unknowns();
  pj["triangles"] = problem.triangle_count();
  pj["k"] = problem.k;
  pj["radius"] = problem.radius;
  pj["ka"] = problem.k * problem.radius;
  pj["mean_edge"] = problem.summary.mean_edge;
  pj["elements_per_wavelength"] = 2 * M_PI / problem.k / problem.summary.mean_edge;
  if (form.dielectric()) pj["elements_per_interior_wavelength"] = 2 * M_PI / (problem.k * mesh_k_factor) / problem.summary.mean_edge;
  pj["near_factor"] = near_factor;
  pj["fill_only"] = fill_only;
  pj["formulation"] = form.name;
  pj["cfie_alpha"] = form.alpha;
  pj["eps_r"] = {form.eps_r.real(), form.eps_r.imag()};
  pj["mu_r"] = {form.mu_r.real(), form.mu_r.imag()};
}

}  // namespace efie
