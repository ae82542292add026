// copa-probe: measures the machine's ceilings for each backend built and writes copa-ceilings/1.
#include <fstream>
#include <iomanip>
#include <iostream>

#include <CLI/CLI.hpp>

#include "copa/backend.hpp"
#include "copa/cli.hpp"
#include "copa/errors.hpp"
#include "copa/machine.hpp"
#include "probe.hpp"
#include "copa/gpu_model.hpp"
#if COPA_GPU
#include "copa/gpu.hpp"
#endif

int main(int argc, char** argv) {
  copa::mpi::Session mpi_session(argc, argv);
  return copa::guarded_main([&] {
    CLI::App app{"copa-probe: measures STREAM bandwidth, FMA peaks and (GPU) launch and transfer costs per backend, "
                 "and writes them as copa-ceilings/1 JSON for the roofline of every copa app"};
    copa::probe::Options o;
    std::string json = "ceilings.json";
    std::string backends = "all";
    bool quick = false;
    int device = 0;
    app.add_option("--json", json, "Output file")->capture_default_str();
    app.add_option("--backend", backends, "serial|openmp|cuda|hip|all (all = every backend built)")->capture_default_str();
    app.add_option("--reps", o.reps, "Timed repetitions (medians)")->check(CLI::Range(1, 1000))->capture_default_str();
    app.add_option("--threads", o.threads, "OpenMP threads (0 = all)")->check(CLI::Range(0, 4096));
    app.add_option("--device", device, "GPU ordinal")->check(CLI::Range(0, 1024));
    app.add_flag("--quick", quick, "Small arrays and few repetitions (a smoke test; not a measurement)");
    if (const int rc = copa::parse_command_line(app, argc, argv); rc >= 0) return rc;
    if (quick) {
      o.cpu_array_bytes = 16u << 20;
      o.gpu_array_bytes = 64u << 20;
      o.reps = 2;
    }
    copa::CommonOptions sel;
    sel.backend = backends;
    const auto list = copa::requested_backends(sel);

    nlohmann::json doc = {{"schema", "copa-ceilings/1"},
                          {"date", copa::iso_date_now()},
                          {"quick", quick},
                          {"build", copa::build_info()},
                          {"backends", nlohmann::json::object()}};
    for (copa::Backend b : list) {
      std::cerr << "copa-probe: measuring " << copa::to_string(b) << " ...\n";
      if (b == copa::Backend::serial) {
        doc["backends"]["serial"] = copa::probe::probe_cpu(o, 1);
      } else if (b == copa::Backend::openmp) {
        doc["backends"]["openmp"] = copa::probe::probe_cpu(o, copa::apply_threads(o.threads));
      } else {
#if COPA_GPU
        copa::select_device(device);
        doc["backends"][copa::to_string(b)] = copa::probe::probe_gpu(o);
#endif
      }
    }
    const bool gpu = doc["backends"].contains("cuda") || doc["backends"].contains("hip");
    doc["machine"] = copa::machine_info(gpu ? copa::default_backend() : copa::Backend::serial, gpu ? device : -1);
    std::ofstream out(json);
    if (!out) throw copa::InputError("--json: cannot write '" + json + "'");
    out << std::setw(2) << doc << "\n";
    for (auto it = doc["backends"].begin(); it != doc["backends"].end(); ++it) {
      const auto& r = it.value();
      std::cout << std::left << std::setw(8) << it.key() << std::fixed << std::setprecision(1)
                << " triad " << r["triad_GBs"].get<double>() << " GB/s, copy " << r["copy_GBs"].get<double>()
                << " GB/s, FP64 " << r["fp64_GFLOPs"].get<double>() << " GFLOP/s, FP32 "
                << r["fp32_GFLOPs"].get<double>() << " GFLOP/s";
      if (r.contains("launch_us"))
        std::cout << ", launch " << r["launch_us"].get<double>() << " us, pinned H2D "
                  << r["h2d_pinned_GBs"].get<double>() << " GB/s, DGEMM " << r["dgemm_GFLOPs"].get<double>() << " GFLOP/s";
      std::cout << "\n";
    }
    std::cout << "wrote " << json << "\n";
    return copa::exit_ok;
  });
}
