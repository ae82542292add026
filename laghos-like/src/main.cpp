// laghos-like: Laghos's Lagrange phase (PA mass, force, quadrature update) on serial, OpenMP,
// CUDA and HIP backends, reproducing Laghos's verification table and reporting its FOM.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <string>

#include "copa/cli.hpp"
#include "copa/errors.hpp"
#include "copa/mpi.hpp"
#include "copa/output.hpp"
#include "copa/progress.hpp"
#include "copa/report.hpp"
#include "copa/vtk.hpp"
#include "cost_model.hpp"
#include "element_split.hpp"
#include "global_state.hpp"
#include "hydro.hpp"
#include "kernels.hpp"
#include "laghos_flags.hpp"
#include "partition.hpp"
#include "run_report.hpp"
#include "setup.hpp"
#include "shared_dofs.hpp"
#include "variants.hpp"
#include "verification.hpp"
#include "vtk_output.hpp"

using namespace laghos;

int main(int argc, char** argv) {
  copa::mpi::Session mpi_session(argc, argv);
  return copa::guarded_main([&]() -> int {
    CLI::App app{"laghos-like: Laghos's high-order Lagrangian hydro (PA mass, force, quadrature update)"};
    copa::CommonOptions common;
    copa::add_common_options(app, common);
    AppOptions o;
    add_app_options(app, o);
    // Only rank 0 prints the human tables (docs/CONVENTIONS.md); errors still reach every rank's stderr.
    if (!copa::mpi::is_root()) std::cout.setstate(std::ios::badbit);
    std::vector<std::string> args = translate_laghos_flags(argc, argv);
    std::vector<char*> args_c{argv[0]};
    for (std::string& a : args) args_c.push_back(a.data());
    const int rc = copa::parse_command_line(app, static_cast<int>(args_c.size()), args_c.data());
    if (rc >= 0) return rc;
    if (common.list) {
      registry().print(std::cout);
      return 0;
    }
    if (common.size != "small" && common.size != "medium" && common.size != "large")
      throw copa::InputError("--size: small, medium or large");
    copa::require_writable_output("--json", common.json);
    copa::vtk::prepare(o.vtk);
    Setup setup = make_setup(o, common.size, app);
    setup.run.quiet = common.quiet;
    const auto backends = copa::requested_backends(common);
    const bool several = backends.size() > 1;
    const int nranks = copa::mpi::size(), me = copa::mpi::rank();
    // Checked before anything runs. With several backends, a --variant that a backend does not
    // offer selects its default there (its --tuning assignments are for the variant named).
    std::map<copa::Backend, copa::Selection> selections;
    for (auto b : backends) {
      const copa::VariantInfo* named = registry().find(common.variant);
      selections[b] = (several && named && !named->offered_on(b))
                          ? registry().default_selection(b, nranks)
                          : registry().select(b, nranks, common.variant, common.tunings);
      apply_to_run(selections[b], common.tunings, setup.dim, setup.spec.order_k, setup.spec.order_t);
    }
    const int threads = copa::apply_threads(common.threads);
    const copa::halo::Transport transport = copa::halo::parse_transport(o.transport);
    if (nranks > 1) {
      for (auto b : backends) {
        if (!copa::is_gpu(b) && transport != copa::halo::Transport::host)
          throw copa::InputError("--transport " + o.transport + ": the " + copa::to_string(b) +
                                 " backend's fields are in host memory (transport host)");
        // Each rank's GPU first: the nccl check compares the ranks' current devices.
        if (copa::is_gpu(b)) copa::select_device(common.device);
      }
      const std::string why = copa::halo::transport_unavailable(transport);
      if (!why.empty()) throw copa::InputError("--transport " + o.transport + ": " + why);
    }
    std::array<int, 3> cells{1, 1, 1};
    for (int c = 0; c < setup.dim; ++c) cells[c] = static_cast<int>(setup.size.cells[c]);
    const Partition part = make_partition(cells, setup.dim, setup.grid);
    require_run_fits(setup, backends, common.device);

    const CartesianMesh global_mesh = build_mesh(setup);
    std::vector<double> state0;
    std::unique_ptr<SharedDofs> shared;
    const Discretization d = [&] {
      if (nranks == 1) return build_discretization(global_mesh, setup.spec, state0);
      const CellBox box = part.box(me);
      Subdomain sub;
      for (int c = 0; c < setup.dim; ++c) {
        sub.wall_lo[c] = box.lo[c] == 0;
        sub.wall_hi[c] = box.hi[c] == cells[c];
      }
      sub.h0 = reference_length(global_mesh, setup.spec.order_k);
      sub.whole = false;
      Discretization local = build_discretization(local_mesh(global_mesh, box), setup.spec, state0, sub);
      if (setup.spec.problem == 1 && copa::mpi::sum_all(local.holds_blast ? 1 : 0) != 1)
        throw copa::InputError("--problem 1: the mesh has no vertex at the origin for the Sedov blast");
      return local;
    }();
    const double global_zones = static_cast<double>(global_mesh.num_elements());
    double global_h1 = d.dim;
    for (int c = 0; c < d.dim; ++c) global_h1 *= static_cast<double>(cells[c]) * d.k + 1;
    const double global_l2 = global_zones * d.nl;

    if (!common.quiet)
      std::cout << "laghos-like: problem " << setup.spec.problem << ", dim " << d.dim << ", Q" << d.k << "Q" << d.ot
              << ", " << global_zones << " zones, H1 dofs " << global_h1 << ", L2 dofs " << global_l2 << ", "
              << d.Q1D << "^" << d.dim << " quadrature points\n";
    {
      std::ostringstream size, plan;
      size << global_zones << " zones of Q" << d.k << "Q" << d.ot << ", " << global_h1 << " H1 dofs, " << global_l2
           << " L2 dofs";
      plan << (setup.run.ode == 7 ? "RK2Avg" : "RK4") << " steps until t = " << setup.run.t_final;
      if (setup.run.max_steps >= 0) plan << " (at most " << setup.run.max_steps << " steps)";
      copa::announce(common.quiet, size.str(), plan.str());
    }

    double serial_e = std::nan("");
    // RK2Avg conserves IE + KE up to the CG solves: each solve leaves a relative error of order
    // cg_tol, so cg_tol bounds the change (measured 1e-3 cg_tol after 278 steps of 2D Sedov).
    const double energy_bound = o.energy_tolerance > 0 ? o.energy_tolerance
                                : (setup.run.ode == 7 ? setup.run.cg_tol : -1.0);
    int exit_code = 0, ran = 0;
    for (auto backend : backends) {
      const copa::Selection& sel = selections.at(backend);
      int device = -1;
      if (copa::is_gpu(backend)) {
        device = copa::select_device(common.device);
      }
      auto kernels = make_kernels(backend, sel);
      kernels->setup(d);
      const std::vector<std::string> substitutions = kernels->substitutions();
      if (nranks > 1) {
        // The backend's own memory: GPU fields are exchanged on the device through --transport.
        shared = std::make_unique<SharedDofs>(
            part, d.k, me, copa::is_gpu(backend) ? transport : copa::halo::Transport::host,
            copa::is_gpu(backend) ? copa::halo::Memory::device : copa::halo::Memory::host);
        if (!common.quiet)
          std::cout << "distributed: " << part.describe() << ", transport "
                  << (copa::is_gpu(backend) ? o.transport : std::string("host")) << ", largest rank "
                  << copa::mpi::max_all(static_cast<double>(d.NE)) << " zones and "
                  << copa::mpi::max_all(static_cast<double>(shared->shared_nodes())) << " shared H1 nodes"
                  << (o.overlap ? ", exchanges of F 1 and the CG mass overlapped with the interior elements" : "") << "\n";
      }
      // The boundary/interior split is reported on every distributed run, used only with --overlap.
      const ElementSplit split = shared ? split_elements(d, shared->shared_mask()) : ElementSplit{};
      const bool overlap = shared && o.overlap;
      RunOptions run = setup.run;
      // Over ranks: one piece per rank and a .pvtu naming them, elements numbered in the global mesh.
      copa::vtk::Series vtk(backend == backends.front() ? o.vtk : copa::vtk::Options{}, "laghos-like",
                            nranks > 1 ? "pvtu" : "vtu");
      const std::vector<std::int64_t> element_ids = nranks > 1 && vtk.enabled() ? global_element_ids(part, me) : std::vector<std::int64_t>{};
      auto write_vtk = [&](const std::vector<double>& state) {
        return [&](const std::string& path) { write_mesh_vtk(path, d, state, vtk.encoding(), element_ids, nranks > 1); };
      };
      run.output_every = vtk.enabled() ? static_cast<int>(o.vtk.every) : 0;
      run.output = [&](int step, double t, const std::vector<double>& state) { vtk.at_step(step, t, write_vtk(state)); };
      copa::Progress progress("step", setup.run.max_steps >= 0 ? setup.run.max_steps : 0, common.quiet);
      run.progress = [&](int step, double t) {
        const double by_steps = setup.run.max_steps > 0 ? double(step) / setup.run.max_steps : 0.0;
        progress.update(step, std::max(t / setup.run.t_final, by_steps));
      };
      LagrangianHydro hydro(d, *kernels, run, shared.get(), overlap ? &split : nullptr);
      if (!common.quiet) {
        std::cout << "\n[" << copa::to_string(backend) << " / " << full_label(sel) << "]\n";
        for (const auto& line : substitutions) std::cout << "kernels: " << line << "\n";
      }
      copa::energy::begin();  // Laghos's own timers, not copa's: the energy meter is told here
      RunResult res = hydro.run(state0, [&](const std::string& line) {
        if (!common.quiet) std::cout << line << "\n";
      });
      copa::energy::end();
      vtk.at_end(res.steps, res.t, write_vtk(res.state));
      const double energy_diff = std::fabs(res.energy_initial - res.energy_final);
      if (!common.quiet) std::cout << laghos_timing_block(res);
      if (!common.quiet)
        std::cout << "\nEnergy  diff: " << std::scientific << std::setprecision(2) << energy_diff << std::defaultfloat
                << std::setprecision(6) << "\n";

      copa::Report report("laghos-like", "1.0");
      report.set_backend(backend);
      report.set_selection(sel);
      report.set_threads(threads);
      report.set_device(device);
      report.set_command_line(copa::command_line(argc, argv));
      report.set_variants_built(registry().built_json());
      report.problem() = problem_json(setup, d, backend, global_zones, global_h1, global_l2);
      if (several && !common.variant.empty() && sel.name() != common.variant)
        report.add_fallback("variant", common.variant, full_label(sel),
                            "--backend all: " + copa::to_string(backend) + " does not offer it, its default ran");
      for (const auto& line : substitutions) {  // "<why>: <what ran>"
        const auto colon = line.find(": ");
        report.add_fallback("kernel", full_label(sel), colon == std::string::npos ? line : line.substr(colon + 2),
                            line.substr(0, colon));
      }

      const HydroTiming& T = res.timing;
      report.set_ceilings(copa::run_ceilings(common, backend, device));
      add_kernel_rows(report, d, res.timing, nranks > 1);
      report.set_fom({"Major kernels total rate", res.rate_total, "megadofs x time steps / second"});
      report.reduce_over_ranks();
      if (nranks > 1) {
        report.set_transport(copa::is_gpu(backend) ? o.transport : std::string("host"));
        nlohmann::json dec = copa::Report::make_decomposition(
            std::vector<int>(part.grid.begin(), part.grid.begin() + d.dim), d.NE, "zones");
        const CommShare share = comm_share(T);
        dec["comm_fraction"] = share.mean;
        dec["comm_fraction_max"] = share.max;
        dec["comm_fraction_per_rank"] = share.per_rank;
        dec["overlap"] = overlap;
        const auto per_rank = [](std::size_t count) {
          std::vector<long long> counts;
          for (double c : copa::mpi::gather_all(static_cast<double>(count))) counts.push_back(static_cast<long long>(c));
          return counts;
        };
        dec["boundary_elements"] = per_rank(split.boundary.size());
        dec["interior_elements"] = per_rank(split.interior.size());
        report.set_decomposition(dec);
        if (!common.quiet)
          std::cout << "\ncommunication inside the timers (rank 0): halo exchange " << T.halo << " s ("
                    << T.halo_samples.size() << " exchanges), allreduce " << T.allreduce << " s ("
                    << T.allreduce_samples.size() << " reductions); fraction of the timed time over ranks: mean "
                    << share.mean << ", max " << share.max << "\n";
      }

      nlohmann::json sol;
      sol["step"] = res.steps;
      sol["steps_taken"] = res.steps_taken;
      sol["repeats"] = res.repeats;
      sol["t"] = res.t;
      sol["dt"] = res.dt;
      sol["e_norm"] = res.e_norm;
      // The run's state in the one-rank layout (rank 0 gathers every box), so that the checksum of
      // an N-rank run is comparable with a one-rank run's.
      const std::vector<double> global_state = gather_global_state(part, d.k, d.nl, res.state);
      if (me == 0) sol["state_checksum"] = state_checksum(global_state);
      sol["energy_diff"] = energy_diff;
      const double energy_rel = energy_diff / std::fabs(res.energy_initial);
      sol["energy_relative_change"] = energy_rel;
      sol["rates"] = {{"cg_h1", res.rate_cg_h1}, {"cg_l2", res.rate_cg_l2}, {"forces", res.rate_force},
                      {"update_quad_data", res.rate_qdata}, {"major_kernels_total", res.rate_total}};
      // Laghos's four timers as Laghos defines them (slowest rank; communication inside included).
      sol["laghos_timers_s"] = {{"cg_h1", T.cg_h1}, {"cg_l2", T.cg_l2}, {"forces", T.force}, {"update_quad_data", T.qdata}};
      sol["kernel_substitutions"] = substitutions;
      sol["h1_cg_iterations"] = T.h1_iter;
      sol["l2_cg_iterations"] = T.l2_iter;
      if (setup.spec.problem == 0 || setup.spec.problem == 4) {
        VelocityErrors ve = velocity_errors(d, res.state, setup.spec.problem);
        if (nranks > 1) {  // element-wise integrals: sums over the ranks' elements
          ve.l1 = copa::mpi::sum_ordered(ve.l1);
          ve.l2 = std::sqrt(copa::mpi::sum_ordered(ve.l2 * ve.l2));
          ve.linf = copa::mpi::max_all(ve.linf);
        }
        sol["velocity_error"] = {{"l1", ve.l1}, {"l2", ve.l2}, {"linf", ve.linf}};
        if (!common.quiet) std::cout << "L_1    error: " << ve.l1 << "\nL_2    error: " << ve.l2 << "\nL_inf  error: " << ve.linf << "\n";
      }
      if (vtk.enabled()) sol["vtk_files"] = vtk.files();
      report.extra()["solution"] = sol;

      VerdictInput vin;
      vin.result = &res;
      if (o.compare_one_rank) {
        vin.one_rank = run_one_rank(global_mesh, setup.spec, setup.run, backend, sel, global_state, sol);
        report.extra()["solution"] = sol;
      }
      vin.reference = setup.reference;
      vin.table_tolerance = o.tolerance;
      vin.serial_e = serial_e;
      vin.against_serial = backend != copa::Backend::serial && several;
      vin.taylor_source = d.taylor_source;
      vin.energy_bound = energy_bound;
      vin.energy_relative_change = energy_rel;
      const copa::Verification v = verdict(vin);
      if (backend == copa::Backend::serial) serial_e = res.e_norm;
      report.set_verification(v);
      if (common.quiet) report.print_verdict(std::cout);
      else report.print(std::cout);
      if (!common.json.empty() && copa::mpi::is_root()) report.write_json(copa::json_path_for(common.json, backend, several));
      if (v.verified && !v.passed) exit_code = copa::exit_verification_failed;
      ++ran;
    }
    // --backend all: every backend built runs (one without the variant asked for runs its default,
    // a fallback line), none is skipped.
    if (several) std::cout << copa::runs_line(ran, {}) << "\n";
    return static_cast<int>(copa::mpi::max_all(static_cast<double>(exit_code)));
  });
}
