// copa-commbench: ping-pong (ranks 0 <-> 1) and a 3D 26-neighbour halo per transport of the halo
// layer, host and device memory, message sizes in powers of 4; writes copa-comm/1 JSON.
#include <algorithm>
#include <fstream>
#include <iomanip>
#include <iostream>

#include <CLI/CLI.hpp>

#include "commbench.hpp"
#include "copa/cli.hpp"
#include "copa/errors.hpp"
#include "copa/halo.hpp"
#include "copa/machine.hpp"
#include "copa/mpi.hpp"
#include "copa/gpu_model.hpp"
#if COPA_GPU
#include "copa/gpu.hpp"
#endif

namespace {

struct Options {
  std::string json = "commbench.json";
  std::vector<std::string> transports;  // empty: every transport that can run
  std::string memory = "all";
  std::size_t min_bytes = 8, max_bytes = std::size_t(256) << 20, halo_max_bytes = std::size_t(16) << 20;
  int reps = 20, warmup = 3, device = -1;
  bool quick = false;
};

bool gpu_build() {
#if COPA_GPU
  return true;
#else
  return false;
#endif
}

void require_fits(const copa::commbench::Footprint& f, std::size_t bytes) {
  const std::string what = "a " + copa::format_bytes(static_cast<double>(bytes)) + " exchange";
  copa::require_host_memory(f.host, what);
#if COPA_GPU
  if (f.device > 0) copa::gpu::require_device_memory(f.device, what);
#endif
}

}  // namespace

int main(int argc, char** argv) {
  copa::mpi::Session mpi_session(argc, argv);
  return copa::guarded_main([&]() -> int {
    namespace hb = copa::halo;
    namespace cb = copa::commbench;
    CLI::App app{"copa-commbench: ping-pong (ranks 0 <-> 1) and a 3D 26-neighbour halo exchange per transport of "
                 "the copa halo layer, host and device memory; writes copa-comm/1 JSON (run with mpirun)"};
    Options o;
    app.add_option("--json", o.json, "Output file")->capture_default_str();
    app.add_option("--transport", o.transports, "Transports to measure (default: every one built that can run here)")
        ->delimiter(',');
    app.add_option("--memory", o.memory, "Field memory")->check(CLI::IsMember({"host", "device", "all"}))
        ->capture_default_str();
    app.add_option("--min-bytes", o.min_bytes, "Smallest message (bytes; sizes grow by 4)")
        ->check(CLI::Range(std::size_t(8), std::size_t(1) << 40))->capture_default_str();
    app.add_option("--max-bytes", o.max_bytes, "Largest ping-pong message (bytes)")
        ->check(CLI::Range(std::size_t(8), std::size_t(1) << 40))->capture_default_str();
    app.add_option("--halo-max-bytes", o.halo_max_bytes, "Largest message per neighbour of the 26-neighbour halo")
        ->check(CLI::Range(std::size_t(8), std::size_t(1) << 40))->capture_default_str();
    app.add_option("--reps", o.reps, "Timed repetitions (medians)")->check(CLI::Range(1, 100000))->capture_default_str();
    app.add_option("--warmup", o.warmup, "Untimed repetitions first")->check(CLI::Range(0, 100000))->capture_default_str();
    app.add_option("--device", o.device, "GPU ordinal (-1 = local rank modulo the device count)")
        ->check(CLI::Range(-1, 1024));
    app.add_flag("--quick", o.quick, "Messages up to 64 KiB, 3 repetitions (a smoke test; not a measurement)");
    if (const int rc = copa::parse_command_line(app, argc, argv); rc >= 0) return rc;
    if (o.quick) {
      o.max_bytes = std::min<std::size_t>(o.max_bytes, 64 << 10);
      o.halo_max_bytes = std::min<std::size_t>(o.halo_max_bytes, 64 << 10);
      o.reps = 3;
      o.warmup = 1;
    }
    if (o.min_bytes > o.max_bytes)
      throw copa::InputError("--min-bytes: " + std::to_string(o.min_bytes) + " is larger than --max-bytes " +
                             std::to_string(o.max_bytes));
    if (o.memory == "device" && !gpu_build())
      throw copa::InputError("--memory: device memory needs a GPU build (preset cuda-mpi)");
    for (const auto& t : o.transports) hb::parse_transport(t);  // InputError naming --transport
    if (o.transports.empty()) o.transports = hb::transports_built();
    int device = -1;
    if (gpu_build() && o.memory != "host") device = copa::select_device(o.device);

    std::vector<hb::Memory> memories;
    if (o.memory != "device") memories.push_back(hb::Memory::host);
    if (o.memory != "host" && gpu_build()) memories.push_back(hb::Memory::device);

    const bool root = copa::mpi::is_root();
    nlohmann::json results = nlohmann::json::array(), skipped = nlohmann::json::array();
    const cb::Halo3d grid = cb::halo3d_links(1);
    for (const auto& name : o.transports) {
      const hb::Transport t = hb::parse_transport(name);
      const bool device_memory = std::find(memories.begin(), memories.end(), hb::Memory::device) != memories.end();
      const std::string why = t != hb::Transport::host && !device_memory
                                  ? "moves device memory, and --memory is host"
                                  : hb::transport_unavailable(t);  // the same answer on every rank
      if (!why.empty()) {
        skipped.push_back({{"transport", name}, {"reason", why}});
        if (root) std::cout << "skipped " << name << ": " << why << "\n";
        continue;
      }
      for (hb::Memory m : memories) {
        if (m == hb::Memory::host && t != hb::Transport::host) continue;  // GPU transports move device memory
        const std::string mem = m == hb::Memory::host ? "host" : "device";
        for (std::size_t bytes = o.min_bytes; bytes <= std::max(o.max_bytes, o.halo_max_bytes); bytes *= 4) {
          const std::int64_t n = std::max<std::int64_t>(1, static_cast<std::int64_t>(bytes / sizeof(double)));
          const std::size_t message = static_cast<std::size_t>(n) * sizeof(double);
          if (bytes <= o.max_bytes && copa::mpi::size() >= 2) {
            require_fits(cb::footprint(n, 2 * n, m), message);
            const cb::PingPong p = cb::ping_pong_links(n);
            const cb::Timing tm = cb::time_exchanges({p.ping, p.pong}, p.field_elements, t, m, o.warmup, o.reps);
            const double one_way = tm.median_s / 2;
            results.push_back({{"transport", name}, {"memory", mem}, {"pattern", "pingpong"}, {"bytes", message},
                               {"latency_us", 1e6 * one_way}, {"GBs_per_direction", 1e-9 * message / one_way}});
          }
          if (bytes <= o.halo_max_bytes) {
            require_fits(cb::footprint(52 * n, 52 * n, m), 26 * message);
            const cb::Halo3d h = cb::halo3d_links(n);
            const cb::Timing tm = cb::time_exchanges({h.links}, h.field_elements, t, m, o.warmup, o.reps);
            const double sent = copa::mpi::max_all(static_cast<double>(tm.bytes_per_direction));
            results.push_back({{"transport", name}, {"memory", mem}, {"pattern", "halo26"}, {"bytes", message},
                               {"bytes_to_other_ranks", sent}, {"latency_us", 1e6 * tm.median_s},
                               {"GBs_per_direction", 1e-9 * sent / tm.median_s}});
          }
          if (bytes > (std::size_t(1) << 62)) break;
        }
      }
    }

    if (!root) return copa::exit_ok;
    nlohmann::json doc = {{"schema", "copa-comm/1"},
                          {"date", copa::iso_date_now()},
                          {"quick", o.quick},
                          {"ranks", copa::mpi::size()},
                          {"process_grid", {grid.dims[0], grid.dims[1], grid.dims[2]}},
                          {"reps", o.reps},
                          {"warmup", o.warmup},
                          {"timing", "median over repetitions of the slowest rank's time; ping-pong: half a round trip"},
                          {"build", copa::build_info()},
                          {"machine", copa::machine_info(device >= 0 ? copa::default_backend() : copa::Backend::serial,
                                                         device)},
                          {"results", results},
                          {"skipped", skipped}};
    std::ofstream out(o.json);
    if (!out) throw copa::InputError("--json: cannot write '" + o.json + "'");
    out << std::setw(2) << doc << "\n";
    std::cout << std::left << std::setw(11) << "transport" << std::setw(7) << "memory" << std::setw(9) << "pattern"
              << std::right << std::setw(12) << "bytes" << std::setw(14) << "latency (us)" << std::setw(12) << "GB/s"
              << "\n";
    for (const auto& r : results)
      std::cout << std::left << std::setw(11) << r["transport"].get<std::string>() << std::setw(7)
                << r["memory"].get<std::string>() << std::setw(9) << r["pattern"].get<std::string>() << std::right
                << std::setw(12) << r["bytes"].get<std::size_t>() << std::fixed << std::setprecision(2)
                << std::setw(14) << r["latency_us"].get<double>() << std::setw(12)
                << r["GBs_per_direction"].get<double>() << "\n";
    std::cout << "wrote " << o.json << "\n";
    return copa::exit_ok;
  });
}
