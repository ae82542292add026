// The GPU backend (CUDA and HIP from one source through copa/gpu.hpp). Particle arrays live on the
// device (structure of arrays); rebucketing is a device counting sort (atomic count, three-phase
// exclusive scan, scatter of every per-particle array; details below). The strategies
// call the host-device target bodies of neighbour_loops.hpp:
//   bucket-block    block per bucket, thread per particle of the bucket, 27 buckets (P-Flow P100)
//   bucket-thread   thread per bucket, its particles one after another (P-Flow CPU mapping)
//   sorted-particle thread per bucket-sorted particle, 9 contiguous row ranges (coalesced)
//   verlet          thread per particle over its ELL list (list[s*n+i]: coalesced in s)
//   fine-rows       buckets of edge r_max/2, a thread per particle scanning only the parts of the
//                   (y, z) rows within reach (for_each_pruned_row): ~2.5x fewer candidates
//   fine-lean       fine-rows with a density-only candidate loop (rsqrt weight, select, no
//                   order[] look-up when reordered); other ops as fine-rows
//   fine-lean-cellrows  fine-lean with the rows chosen in FP32 bucket-edge units
//                   (for_each_pruned_row_cell): cheaper row set-ups; other ops as fine-rows
// Rebucketing is four launches: count (+ rank of each particle in its bucket), block scan, scan
// of the block totals, add (which also zeroes the counts for the next call); then one scatter
// writes order and every reordered array (and the fp32 positions) at start[c] + rank.
// --rebucket cub replaces the scan by cub::DeviceScan::ExclusiveSum and the ranks by a stable
// cub::DeviceRadixSort::SortPairs of (bucket, index) (hipCUB on HIP where installed).
// --rebucket fused does the same atomic sort in three launches: count, a scan whose last block
// scans the block totals, and a scatter that also writes the bucket starts.
// --tuning step=graph (fine-lean-cellrows) captures those launches, and in rebucket_and_density
// the number density after them, into a graph (once per buffer set) and replays it: one launch
// per rebucketing, one per P-Flow step, the same kernels on the same data.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <vector>

#include "copa/device_memory.hpp"
#include "copa/errors.hpp"
#include "copa/gpu.hpp"
#include "copa/gpu_cub.hpp"
#include "copa/halo.hpp"
#include "dist/migrate.hpp"
#include "kernels.hpp"
#include "gpu/launch.cuh"
#include "gpu/rebucket.cuh"
#include "gpu/state.cuh"
#include "gpu/strategies.cuh"
#include "neighbour_loops.hpp"
#include "pair_op_kernels.hpp"

namespace mps {
namespace {

using namespace mps::gpu;

// ---------------------------------------------------------------- the backend
class GpuKernels final : public PairOpKernels<GpuKernels> {
  friend class PairOpKernels<GpuKernels>;

 public:
  explicit GpuKernels(const KernelOptions& o) : opt_(o) {
#if !defined(COPA_HAVE_GPU_CUB)
    if (o.cub_rebucket)
      throw copa::InputError("--rebucket cub: this HIP build has no hipCUB (hipcub/hipcub.hpp was not found); use atomic or stable");
#endif
  }
  ~GpuKernels() override {
    drop_graphs();
    if (capture_stream_ != nullptr) (void)COPA_GPU_SYMBOL(StreamDestroy)(capture_stream_);
  }
  copa::Backend backend() const override {
#if defined(COPA_HAVE_HIP)
    return copa::Backend::hip;
#else
    return copa::Backend::cuda;
#endif
  }
  std::string strategy_name() const override { return to_string(opt_.strategy); }

  void load(const Problem& pr, double max_radius) override {
    const Particles& ps = pr.particles;
    if (pr.ghosts > ps.size()) throw copa::RuntimeError("load: more ghosts than particles");
    allocate(pr, max_radius, ps.size(), pr.ghosts);
    // A rank of a distributed run may hold no particle: no zero-byte copies, no empty-grid launches.
    if (n_ > 0) {
      const std::vector<double>* src[] = {&ps.x, &ps.y, &ps.z, &ps.u, &ps.v, &ps.w, &ps.p};
      for (int f = 0; f < 7; ++f) f_[f].copy_from_host(src[f]->data());
      type_.copy_from_host(ps.type.data());
    }
    have_global_ids_ = false;
  }

  void set_global_ids(const std::vector<std::int64_t>& ids) override {
    if (ids.size() != static_cast<std::size_t>(n_))
      throw copa::RuntimeError("set_global_ids: " + std::to_string(ids.size()) + " ids for " + std::to_string(n_) + " particles");
    const std::vector<double> as_double(ids.begin(), ids.end());  // exact: ids < 2^31
    if (n_ > 0) gid_.copy_from_host(as_double.data());
    copa::gpu::synchronize();
    have_global_ids_ = true;
  }

  bool migrates_on_device() const override { return true; }
  RebuiltLayout migrate_on_device(const DeviceRebuild& plan, std::size_t owned) override;

  void store(Particles& out) override {
    store_fields(out, grid_.dim);
    std::vector<std::uint8_t> t(n_);
    if (n_ > 0) type_.copy_to_host(t.data());
    const auto id = ids();
    out.type.resize(n_);
    for (int i = 0; i < n_; ++i) out.type[id[i]] = t[i];
  }
  std::vector<double> get(Field f) override {
    std::vector<double> a(n_), out(n_);
    if (n_ == 0) return out;
    fa(f).copy_to_host(a.data());
    copa::gpu::synchronize();
    const auto id = ids();
    for (int i = 0; i < n_; ++i) out[id[i]] = a[i];
    return out;
  }
  void set(Field f, const std::vector<double>& values) override {
    if (n_ == 0) return;
    const auto id = ids();
    std::vector<double> a(n_);
    for (int i = 0; i < n_; ++i) a[i] = values[id[i]];
    fa(f).copy_from_host(a.data());
    copa::gpu::synchronize();
  }

  void fill_ghosts(copa::halo::Exchange& exchange, std::size_t owned) override {
    constexpr std::size_t components = 4;  // dist::halo_components: x, y, z, type
    if (halo_.size() != components * n_) halo_ = DeviceArray<double>(components * n_);
    if (n_ > 0) {
      halo_pack_kernel<<<blocks_for(n_, kThreads), kThreads>>>(fd(Field::x), fd(Field::y), fd(Field::z), type_.data(),
                                                               id_.data(), n_, halo_.data());
      COPA_GPU_CHECK_LAUNCH("halo_pack_kernel");
    }
    exchange.run(halo_.data());  // collective: every rank takes part, with or without particles
    if (n_ > 0) {
      halo_unpack_kernel<<<blocks_for(n_, kThreads), kThreads>>>(halo_.data(), id_.data(), n_, static_cast<int>(owned),
                                                                 fd(Field::x), fd(Field::y), fd(Field::z), type_.data());
      COPA_GPU_CHECK_LAUNCH("halo_unpack_kernel");
    }
  }

  // Distributed simulation: the field is packed in load order on the device, exchanged by the
  // transport (host: pinned staging) and written back to the ghosts; no host copy of the field.
  bool ghosts_on_device() const override { return true; }
  void refresh_ghosts(copa::halo::Exchange& exchange, Field f, std::size_t owned) override {
    if (halo_field_.size() != static_cast<std::size_t>(n_)) halo_field_ = DeviceArray<double>(n_);
    if (n_ > 0) {
      halo_pack_field_kernel<<<blocks_for(n_, kThreads), kThreads>>>(fd(f), id_.data(), n_, halo_field_.data());
      COPA_GPU_CHECK_LAUNCH("halo_pack_field_kernel");
    }
    exchange.run(halo_field_.data());
    if (n_ > 0) {
      halo_unpack_field_kernel<<<blocks_for(n_, kThreads), kThreads>>>(halo_field_.data(), id_.data(), n_,
                                                                       static_cast<int>(owned), fd(f));
      COPA_GPU_CHECK_LAUNCH("halo_unpack_field_kernel");
    }
  }
  double dot_owned(Field a, Field b, std::size_t owned) override {
    if (n_ == 0) return 0.0;
    const int blocks = static_cast<int>(std::min<unsigned>(1024u, blocks_for(n_, kThreads)));
    dot_owned_partial_kernel<<<blocks, kThreads>>>(fd(a), fd(b), id_.data(), static_cast<int>(owned), n_, partial_.data());
    COPA_GPU_CHECK_LAUNCH("dot_owned_partial_kernel");
    dot_final_kernel<<<1, kThreads>>>(partial_.data(), blocks, cg_scalars_.data());
    COPA_GPU_CHECK_LAUNCH("dot_final_kernel");
    double sum = 0;
    copa::gpu::copy_to_host(&sum, cg_scalars_.data(), sizeof(sum));
    copa::gpu::synchronize();
    return sum;
  }

  void remember_positions(std::size_t owned) override {
    for (auto* a : {&x_ref_, &y_ref_, &z_ref_})
      if (a->size() != owned) *a = DeviceArray<double>(owned);
    if (n_ == 0 || owned == 0) return;
    remember_positions_kernel<<<blocks_for(n_, kThreads), kThreads>>>(fd(Field::x), fd(Field::y), fd(Field::z), id_.data(),
                                                                      n_, static_cast<int>(owned), x_ref_.data(),
                                                                      y_ref_.data(), z_ref_.data());
    COPA_GPU_CHECK_LAUNCH("remember_positions_kernel");
  }
  // One device max reduction and one scalar back (no copy of the positions).
  double max_displacement(std::size_t owned) override {
    if (x_ref_.size() != owned)
      throw copa::RuntimeError("max_displacement: positions of " + std::to_string(owned) + " particles were not remembered");
    if (n_ == 0 || owned == 0) return 0.0;
    copa::gpu::fill_zero(scalars_.data(), sizeof(unsigned long long));
    owned_displacement_kernel<<<blocks_for(n_, kThreads), kThreads>>>(fd(Field::x), fd(Field::y), fd(Field::z), id_.data(),
                                                                      n_, static_cast<int>(owned), x_ref_.data(),
                                                                      y_ref_.data(), z_ref_.data(), scalars_.data());
    COPA_GPU_CHECK_LAUNCH("owned_displacement_kernel");
    unsigned long long bits = 0;
    copa::gpu::copy_to_host(&bits, scalars_.data(), sizeof(bits));
    double worst;
    std::memcpy(&worst, &bits, sizeof(worst));
    return std::sqrt(worst);
  }
  std::size_t count_active(std::size_t owned) override {
    if (n_ == 0 || owned == 0) return 0;
    copa::gpu::fill_zero(scalars_.data(), sizeof(unsigned long long));
    count_active_kernel<<<blocks_for(n_, kThreads), kThreads>>>(active_.data(), id_.data(), n_, static_cast<int>(owned),
                                                                scalars_.data());
    COPA_GPU_CHECK_LAUNCH("count_active_kernel");
    unsigned long long c = 0;
    copa::gpu::copy_to_host(&c, scalars_.data(), sizeof(c));
    return static_cast<std::size_t>(c);
  }

  void prepare_neighbours(bool force) override {
    if (n_ == 0) return;  // a rank with no local particle: no empty-grid launch
    if (opt_.strategy != Strategy::verlet) {
      rebucket();
      return;
    }
    bool rebuild = force || !lists_valid_;
    if (!rebuild) {
      copa::gpu::fill_zero(scalars_.data(), sizeof(unsigned long long));
      displacement_kernel<<<blocks_for(n_, kThreads), kThreads>>>(fd(Field::x), fd(Field::y), fd(Field::z), xb_.data(),
                                                                  yb_.data(), zb_.data(), n_, scalars_.data());
      COPA_GPU_CHECK_LAUNCH("displacement_kernel");
      unsigned long long bits = 0;
      copa::gpu::copy_to_host(&bits, scalars_.data(), sizeof(bits));
      copa::gpu::synchronize();
      double worst;
      std::memcpy(&worst, &bits, sizeof(worst));
      rebuild = worst > 0.25 * skin_ * skin_;
    }
    if (rebuild) {
      rebucket();
      build_verlet();
    }
  }
  int list_rebuilds() const override { return rebuilds_; }

  void number_density(double re) override {
    if (n_ > 0) enqueue_density(re);
  }
  // step=graph: the rebucketing and the density as one graph launch. The density reads the arrays
  // the scatter wrote: they are swapped in for its capture and back out after it, so that the
  // swap below follows the graph's launch exactly as it follows rebucket()'s. Verlet's list build
  // reads its capacity on the host: not capturable, it runs as prepare_neighbours does.
  void rebucket_and_density(double re) override {
    if (!opt_.step_graph || n_ == 0 || opt_.strategy == Strategy::verlet) {
      MpsKernels::rebucket_and_density(re);
      return;
    }
    launch_graph(Captured::step, re, [&] {
      enqueue_rebucket();
      swap_scattered();
      enqueue_density(re);
      swap_scattered();
    });
    swap_scattered();
  }

  void predictor(double dt, double nu, const double g[3]) override {
    if (n_ == 0) return;
    predictor_kernel<<<blocks_for(n_, kThreads), kThreads>>>(fd(Field::x), fd(Field::y), fd(Field::z), fd(Field::u),
                                                             fd(Field::v), fd(Field::w), fd(Field::ax), fd(Field::ay),
                                                             fd(Field::az), type_.data(), n_, dt, nu, g[0], g[1], g[2],
                                                             grid_.dim == 3);
    COPA_GPU_CHECK_LAUNCH("predictor_kernel");
  }
  void correct(double scale, double dt) override {
    if (n_ == 0) return;
    correct_kernel<<<blocks_for(n_, kThreads), kThreads>>>(fd(Field::x), fd(Field::y), fd(Field::z), fd(Field::u),
                                                           fd(Field::v), fd(Field::w), fd(Field::ax), fd(Field::ay),
                                                           fd(Field::az), type_.data(), n_, scale, dt, grid_.dim == 3);
    COPA_GPU_CHECK_LAUNCH("correct_kernel");
  }
  std::size_t ppe_setup(double n_surface, double n0, double src) override {
    if (n_ == 0) return 0;
    copa::gpu::fill_zero(scalars_.data(), sizeof(unsigned long long));
    ppe_setup_kernel<<<blocks_for(n_, kThreads), kThreads>>>(fd(Field::n), type_.data(), n_, n_surface, n0, src,
                                                             active_.data(), fd(Field::rhs), fd(Field::p), scalars_.data());
    COPA_GPU_CHECK_LAUNCH("ppe_setup_kernel");
    unsigned long long c = 0;
    copa::gpu::copy_to_host(&c, scalars_.data(), sizeof(c));
    copa::gpu::synchronize();
    return static_cast<std::size_t>(c);
  }
  double dot(Field a, Field b) override {
    if (n_ == 0) return 0.0;
    dot_to(a, b, cg_scalars_.data());
    double s = 0;
    copa::gpu::copy_to_host(&s, cg_scalars_.data(), sizeof(s));
    copa::gpu::synchronize();
    return s;
  }

  // CG with its scalars in cg_scalars_: [0] = b.b, [1] and [2] = r.r of alternate iterations,
  // [3] = d.Ad, [4] = breakdown flag. Seven launches per iteration (operator, two dot products
  // of two launches each, step, direction) and no host synchronisation; the host reads
  // r.r and the flag every kCheckEvery iterations, so up to kCheckEvery - 1 iterations more than a
  // host-driven CG are done (each only lowers the residual).
  CgResult ppe_cg(double re, double coef, double diag, double tol, int max_iterations) override {
    constexpr int kCheckEvery = 8;
    if (n_ == 0) return {};
    double* s = cg_scalars_.data();
    ppe_apply(Field::p, Field::adir, re, coef, diag);
    copy(Field::rhs, Field::res);
    axpy(-1.0, Field::adir, Field::res);
    copy(Field::res, Field::dir);
    copa::gpu::fill_zero(s + 4, sizeof(double));
    dot_to(Field::rhs, Field::rhs, s + 0);
    dot_to(Field::res, Field::res, s + 1);
    double host[5] = {0, 0, 0, 0, 0};
    copa::gpu::copy_to_host(host, s, sizeof(host));
    copa::gpu::synchronize();
    const double bb = host[0];
    double rr = host[1];
    CgResult out;
    if (!(bb > 0)) return out;
    int cur = 1;  // slot of the current r.r
    while (out.iterations < max_iterations && std::sqrt(rr / bb) > tol) {
      ppe_apply(Field::dir, Field::adir, re, coef, diag);
      dot_to(Field::dir, Field::adir, s + 3);
      cg_step_kernel<<<blocks_for(n_, kThreads), kThreads>>>(s + cur, s + 3, fd(Field::dir), fd(Field::adir), fd(Field::p),
                                                             fd(Field::res), n_, s + 4);
      COPA_GPU_CHECK_LAUNCH("cg_step_kernel");
      const int next = 3 - cur;
      dot_to(Field::res, Field::res, s + next);
      cg_direction_kernel<<<blocks_for(n_, kThreads), kThreads>>>(s + next, s + cur, fd(Field::res), fd(Field::dir), n_);
      COPA_GPU_CHECK_LAUNCH("cg_direction_kernel");
      cur = next;
      ++out.iterations;
      if (out.iterations % kCheckEvery == 0 || out.iterations == max_iterations) {
        copa::gpu::copy_to_host(host, s, sizeof(host));
        copa::gpu::synchronize();
        if (host[4] != 0) throw copa::RuntimeError("PPE conjugate gradients broke down (d^T A d <= 0)");
        rr = host[cur];
      }
    }
    out.residual = std::sqrt(rr / bb);
    return out;
  }
  void axpy(double alpha, Field x, Field y) override {
    if (n_ == 0) return;
    axpy_kernel<<<blocks_for(n_, kThreads), kThreads>>>(alpha, fd(x), fd(y), n_);
    COPA_GPU_CHECK_LAUNCH("axpy_kernel");
  }
  void xpay(Field x, double beta, Field y) override {
    if (n_ == 0) return;
    xpay_kernel<<<blocks_for(n_, kThreads), kThreads>>>(fd(x), beta, fd(y), n_);
    COPA_GPU_CHECK_LAUNCH("xpay_kernel");
  }
  void copy(Field from, Field to) override {
    if (n_ > 0) copa::gpu::copy_on_device(fd(to), fd(from), sizeof(double) * n_);
  }
  void clamp_negative_pressure() override {
    if (n_ == 0) return;
    clamp_kernel<<<blocks_for(n_, kThreads), kThreads>>>(fd(Field::p), n_);
    COPA_GPU_CHECK_LAUNCH("clamp_kernel");
  }
  void check_state() override {
    if (n_ == 0) return;
    int* d = reinterpret_cast<int*>(scalars_.data() + 1);
    copa::gpu::fill_zero(d, 2 * sizeof(int));
    check_kernel<<<blocks_for(n_, kThreads), kThreads>>>(view(), grid_, id_.data(), d);
    COPA_GPU_CHECK_LAUNCH("check_kernel");
    int bad[2] = {0, 0};
    copa::gpu::copy_to_host(bad, d, sizeof(bad));
    copa::gpu::synchronize();
    if (bad[0] > 0) throw copa::RuntimeError("NaN in the state of particle " + std::to_string(bad[0] - 1) + " (time step too large?)");
    if (bad[1] > 0) throw copa::RuntimeError("particle " + std::to_string(bad[1] - 1) + " left the domain (bucket grid)");
  }
  std::size_t bytes_needed(std::size_t n, long long cells, double neighbours) const override {
    // 15 double fields + 7 gather targets, type/active/scratch bytes, id/cell/order/scratch ints.
    if (is_fine(opt_.strategy)) cells *= static_cast<long long>(fine_divisions) * fine_divisions * fine_divisions;
    std::size_t b = n * ((field_count + 7) * sizeof(double) + 3 + 5 * sizeof(int)) + static_cast<std::size_t>(cells + 1) * 2 * sizeof(int);
    if (opt_.strategy == Strategy::verlet) b += static_cast<std::size_t>(n * (neighbours * 1.3 + 1) * sizeof(int)) + 3 * n * sizeof(double);
    if (opt_.precision == copa::Precision::fp32) b += n * 16;
    // --rebucket cub: sorted keys and the index sequence, plus the library's temporary storage
    // (counted as the radix sort's double buffers of keys and values).
    if (opt_.cub_rebucket) b += n * 4 * sizeof(int);
    if (opt_.fused_rebucket) b += static_cast<std::size_t>(cells + 1) * sizeof(int);
    return b;
  }

 private:
  // step=graph: a graph holds the device pointers of one buffer set (buffers_: the reorder's swap
  // alternates two), so each sequence is captured once per set (and radius) and dropped when
  // allocate() replaces the arrays.
  struct Captured {
    enum What { rebucket, step } what;
    int buffers;
    double re;
    COPA_GPU_SYMBOL(GraphExec_t) exec;
  };
  static int idx(Field f) { return static_cast<int>(f); }
  // Every device array for n particles (the last `ghosts` sources only) on the problem's grid,
  // fields zeroed, load index = storage index; the particle fields are the caller's to fill.
  void allocate(const Problem& pr, double max_radius, std::size_t n, std::size_t ghosts) {
    drop_graphs();  // they hold the pointers of the arrays replaced below
    buffers_ = 0;
    n_ = static_cast<int>(n);
    ghosts_ = static_cast<int>(ghosts);
    const SearchGeometry sg = search_geometry(pr, max_radius, opt_);
    grid_ = sg.grid;
    skin_ = sg.skin;
    list_radius_ = sg.list_radius;
    reach_ = sg.reach;
    for (auto& a : f_) a = DeviceArray<double>(n);
    if (n > 0)
      for (int f = 0; f < field_count; ++f) copa::gpu::fill_zero(f_[f].data(), f_[f].bytes());
    // Gather targets of the 7 moved fields (x y z u v w p); the reorder swaps them in.
    for (auto& a : scratch_) a = DeviceArray<double>(n);
    type_ = DeviceArray<std::uint8_t>(n);
    type_tmp_ = DeviceArray<std::uint8_t>(n);
    active_ = DeviceArray<std::uint8_t>(n);
    id_ = DeviceArray<int>(n);
    gid_ = DeviceArray<double>(n);
    if (n > 0) {
      copa::gpu::fill_zero(active_.data(), n);
      iota_kernel<<<blocks_for(n_, kThreads), kThreads>>>(n_, id_.data());
      COPA_GPU_CHECK_LAUNCH("iota_kernel");
    }
    id_tmp_ = DeviceArray<int>(n);
    cell_ = DeviceArray<int>(n);
    rank_ = DeviceArray<int>(n);
    order_ = DeviceArray<int>(n);
    const long long cells = grid_.cells();
    if (cells >= (1ll << 31) - 1) throw copa::InputError("too many buckets for int indices: " + std::to_string(cells));
    count_ = DeviceArray<int>(cells + 1);
    copa::gpu::fill_zero(count_.data(), count_.bytes());
    start_ = DeviceArray<int>(cells + 1);
    scan_blocks_ = static_cast<int>((cells + kScanBlock - 1) / kScanBlock);
    totals_ = DeviceArray<int>(scan_blocks_ + 1);
    part_ = opt_.fused_rebucket ? DeviceArray<int>(cells + 1) : DeviceArray<int>();
    ticket_ = opt_.fused_rebucket ? DeviceArray<unsigned>(1) : DeviceArray<unsigned>();
    if (opt_.fused_rebucket) copa::gpu::fill_zero(ticket_.data(), ticket_.bytes());
    scalars_ = DeviceArray<unsigned long long>(4);
    partial_ = DeviceArray<double>(1024);
    cg_scalars_ = DeviceArray<double>(5);
    copa::gpu::fill_zero(cg_scalars_.data(), cg_scalars_.bytes());
    q_ = opt_.precision == copa::Precision::fp32 ? DeviceArray<float4>(n) : DeviceArray<float4>();
    if (opt_.cub_rebucket) prepare_library_sort();
    lists_valid_ = false;
    rebuilds_ = 0;
    capacity_ = 0;
  }
  // Exclusive scan of flag[0, count) into pos[0, count] (pos[count] = the total, returned; a few
  // bytes back to the host to size the messages). flag is zeroed by the scan (scan_add_kernel).
  int exclusive_scan(int* flag, int* pos, int count) {
    if (count == 0) return 0;
    const int blocks = (count + static_cast<int>(kScanBlock) - 1) / static_cast<int>(kScanBlock);
    DeviceArray<int> totals(blocks + 1);
    scan_blocks_kernel<<<blocks, kScanBlock>>>(flag, pos, totals.data(), count);
    COPA_GPU_CHECK_LAUNCH("scan_blocks_kernel");
    scan_totals_kernel<<<1, kScanBlock>>>(totals.data(), blocks, totals.data() + blocks);
    COPA_GPU_CHECK_LAUNCH("scan_totals_kernel");
    scan_add_kernel<<<blocks + 1, kScanBlock>>>(pos, totals.data(), count, totals.data() + blocks, flag);
    COPA_GPU_CHECK_LAUNCH("scan_add_kernel");
    int total = 0;
    copa::gpu::copy_to_host(&total, pos + count, sizeof(total));
    return total;
  }
  StatePointers state() {
    StatePointers st;
    for (int f = 0; f < 7; ++f) st.f[f] = f_[f].data();
    st.type = type_.data();
    return st;
  }
  DeviceArray<double>& fa(Field f) { return f_[idx(f)]; }
  // Dot product into a device scalar (two launches, no synchronisation).
  void dot_to(Field a, Field b, double* out) {
    const int blocks = static_cast<int>(std::min<unsigned>(1024u, blocks_for(n_, kThreads)));
    dot_partial_kernel<<<blocks, kThreads>>>(fd(a), fd(b), n_, partial_.data());
    COPA_GPU_CHECK_LAUNCH("dot_partial_kernel");
    dot_final_kernel<<<1, kThreads>>>(partial_.data(), blocks, out);
    COPA_GPU_CHECK_LAUNCH("dot_final_kernel");
  }
  double* fd(Field f) { return f_[idx(f)].data(); }
  std::vector<int> ids() {
    std::vector<int> id(n_);
    if (n_ == 0) return id;
    id_.copy_to_host(id.data());
    copa::gpu::synchronize();
    return id;
  }
  View view() {
    return particle_view([this](int k) { return fd(static_cast<Field>(k)); }, type_.data(), n_, grid_.dim, id_.data(),
                         ghosts_);
  }
  BucketsView buckets() { return buckets_view(grid_, start_.data(), order_.data(), opt_.reorder, reach_); }

  // The number density's launch on s_ (no host synchronisation: capturable).
  void enqueue_density(double re) {
    if (opt_.precision == copa::Precision::fp32 && is_fine(opt_.strategy)) {
      launch_fp32_fine(static_cast<float>(re));
      return;
    }
    if (opt_.precision == copa::Precision::fp32) {
      const View v = view();
      density_fp32_kernel<<<blocks_for(n_, kThreads), kThreads, 0, s_>>>(q_.data(), fd(Field::y), fd(Field::z), buckets(), n_,
                                                                  static_cast<float>(re), v.load_id, v.targets, fd(Field::n));
      COPA_GPU_CHECK_LAUNCH("density_fp32_kernel");
      return;
    }
    if (opt_.strategy == Strategy::fine_lean) {
      launch_fine_lean<false>(re);
      return;
    }
    if (opt_.strategy == Strategy::fine_lean_cellrows) {
      launch_fine_lean<true>(re);
      return;
    }
    run(DensityOp{re, re * re, fd(Field::n)});
  }

  // step=graph: the launches `enqueue` makes on s_, captured into a graph the first time they run
  // for this buffer set and radius, then replayed as one launch on the default stream (the
  // stream of every other launch and of the timers' events, so the order is unchanged).
  template <class Enqueue>
  void launch_graph(Captured::What what, double re, Enqueue&& enqueue) {
    auto it = std::find_if(graphs_.begin(), graphs_.end(),
                           [&](const Captured& c) { return c.what == what && c.buffers == buffers_ && c.re == re; });
    if (it == graphs_.end()) {
      graphs_.push_back({what, buffers_, re, capture(enqueue)});
      it = graphs_.end() - 1;
    }
    COPA_GPU_CHECK(COPA_GPU_SYMBOL(GraphLaunch)(it->exec, nullptr));
    copa::gpu::check_launch("step graph", __FILE__, __LINE__);
  }
  template <class Enqueue>
  COPA_GPU_SYMBOL(GraphExec_t) capture(Enqueue& enqueue) {
    if (capture_stream_ == nullptr) capture_stream_ = copa::gpu::create_stream();
    COPA_GPU_CHECK(COPA_GPU_SYMBOL(StreamBeginCapture)(capture_stream_, COPA_GPU_SYMBOL(StreamCaptureModeThreadLocal)));
    COPA_GPU_SYMBOL(Graph_t) graph{};
    s_ = capture_stream_;
    try {
      const copa::gpu::CaptureScope capturing;  // check_launch: no synchronisation while capturing
      enqueue();
    } catch (...) {
      s_ = nullptr;
      if (COPA_GPU_SYMBOL(StreamEndCapture)(capture_stream_, &graph) == COPA_GPU_SYMBOL(Success) && graph != nullptr)
        (void)COPA_GPU_SYMBOL(GraphDestroy)(graph);
      throw;
    }
    s_ = nullptr;
    COPA_GPU_CHECK(COPA_GPU_SYMBOL(StreamEndCapture)(capture_stream_, &graph));
    COPA_GPU_SYMBOL(GraphExec_t) exec{};
    const copa::gpu::error_t rc = COPA_GPU_SYMBOL(GraphInstantiateWithFlags)(&exec, graph, 0);
    (void)COPA_GPU_SYMBOL(GraphDestroy)(graph);
    copa::gpu::check(rc, "GraphInstantiateWithFlags", __FILE__, __LINE__);
    return exec;
  }
  void drop_graphs() {
    for (const Captured& c : graphs_) (void)COPA_GPU_SYMBOL(GraphExecDestroy)(c.exec);
    graphs_.clear();
  }

  // The counting sort, then the scattered arrays swapped in; step=graph replays its launches as
  // one graph (captured once per buffer set: the swap alternates two).
  void rebucket() {
    if (opt_.step_graph)
      launch_graph(Captured::rebucket, 0.0, [&] { enqueue_rebucket(); });
    else
      enqueue_rebucket();
    swap_scattered();
  }
  // The rebucketing's launches on s_, by method; the caller swaps the scattered arrays in.
  void enqueue_rebucket() {
    if (opt_.cub_rebucket) {
      library_rebucket();
      return;
    }
    if (opt_.fused_rebucket) {
      fused_rebucket();
      return;
    }
    const long long cells = grid_.cells();
    count_kernel<<<blocks_for(n_, kThreads), kThreads, 0, s_>>>(grid_, fd(Field::x), fd(Field::y), fd(Field::z), n_, cell_.data(),
                                                         rank_.data(), count_.data());
    COPA_GPU_CHECK_LAUNCH("count_kernel");
    scan_blocks_kernel<<<scan_blocks_, kScanBlock, 0, s_>>>(count_.data(), start_.data(), totals_.data(), cells);
    COPA_GPU_CHECK_LAUNCH("scan_blocks_kernel");
    scan_totals_kernel<<<1, kScanBlock, 0, s_>>>(totals_.data(), scan_blocks_, totals_.data() + scan_blocks_);
    COPA_GPU_CHECK_LAUNCH("scan_totals_kernel");
    scan_add_kernel<<<scan_blocks_ + 1, kScanBlock, 0, s_>>>(start_.data(), totals_.data(), cells, totals_.data() + scan_blocks_, count_.data());
    COPA_GPU_CHECK_LAUNCH("scan_add_kernel");
    if (opt_.stable_buckets) {
      order_slots_kernel<<<blocks_for(n_, kThreads), kThreads, 0, s_>>>(cell_.data(), rank_.data(), start_.data(), n_, order_.data());
      COPA_GPU_CHECK_LAUNCH("order_slots_kernel");
      stable_rank_kernel<<<blocks_for(n_, kThreads), kThreads, 0, s_>>>(cell_.data(), start_.data(), order_.data(), n_, rank_.data());
      COPA_GPU_CHECK_LAUNCH("stable_rank_kernel");
    }
    scatter();
  }

  // --rebucket fused: count, one-launch scan, scatter that also writes the bucket starts.
  void fused_rebucket() {
    const long long cells = grid_.cells();
    count_kernel<<<blocks_for(n_, kThreads), kThreads, 0, s_>>>(grid_, fd(Field::x), fd(Field::y), fd(Field::z), n_, cell_.data(),
                                                         rank_.data(), count_.data());
    COPA_GPU_CHECK_LAUNCH("count_kernel");
    scan_blocks_last_kernel<<<scan_blocks_, kScanBlock, 0, s_>>>(count_.data(), part_.data(), totals_.data(), cells, ticket_.data());
    COPA_GPU_CHECK_LAUNCH("scan_blocks_last_kernel");
    const ScatterSet ss = scatter_set();
    const std::size_t threads = std::max<std::size_t>(static_cast<std::size_t>(n_), static_cast<std::size_t>(cells) + 1);
    scatter_fused_kernel<<<blocks_for(threads, kThreads), kThreads, 0, s_>>>(grid_, cell_.data(), rank_.data(), part_.data(),
                                                                      totals_.data(), cells, n_, order_.data(), ss,
                                                                      start_.data());
    COPA_GPU_CHECK_LAUNCH("scatter_fused_kernel");
  }

  // The counting sort's last step: every particle to start[cell] + rank (and order).
  void scatter() {
    scatter_kernel<<<blocks_for(n_, kThreads), kThreads, 0, s_>>>(grid_, cell_.data(), rank_.data(), start_.data(), n_,
                                                           order_.data(), scatter_set());
    COPA_GPU_CHECK_LAUNCH("scatter_kernel");
  }
  ScatterSet scatter_set() {
    ScatterSet ss;
    for (int f = 0; f < 7; ++f) {
      ss.in[f] = f_[f].data();
      ss.out[f] = scratch_[f].data();
    }
    ss.type_in = type_.data();
    ss.type_out = type_tmp_.data();
    ss.id_in = id_.data();
    ss.id_out = id_tmp_.data();
    ss.reorder = opt_.reorder;
    ss.q = opt_.precision == copa::Precision::fp32 ? q_.data() : nullptr;
    return ss;
  }
  // With reorder the scatter wrote the arrays into the scratch copies: swap them in.
  void swap_scattered() {
    if (opt_.reorder) {
      for (int f = 0; f < 7; ++f) std::swap(f_[f], scratch_[f]);
      std::swap(type_, type_tmp_);
      std::swap(id_, id_tmp_);
      buffers_ ^= 1;
    }
  }

#if defined(COPA_HAVE_GPU_CUB)
  // Key width of the radix sort: the bits of the largest bucket index (fewer passes).
  int key_bits() const {
    int bits = 1;
    while ((1ll << bits) < grid_.cells()) ++bits;
    return bits;
  }
  void prepare_library_sort() {
    iota_ = DeviceArray<int>(n_);
    cell_sorted_ = DeviceArray<int>(n_);
    if (n_ == 0) return;
    iota_kernel<<<blocks_for(n_, kThreads), kThreads>>>(n_, iota_.data());
    COPA_GPU_CHECK_LAUNCH("iota_kernel");
    std::size_t scan_bytes = 0, sort_bytes = 0;
    COPA_GPU_CHECK(copa::gpu_cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, count_.data(), start_.data(),
                                                    static_cast<int>(grid_.cells() + 1)));
    COPA_GPU_CHECK(copa::gpu_cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, cell_.data(), cell_sorted_.data(), iota_.data(),
                                                      order_.data(), n_, 0, key_bits()));
    library_temp_ = DeviceArray<unsigned char>(std::max<std::size_t>(1, std::max(scan_bytes, sort_bytes)));
  }
  // count (atomic, ranks unused) -> library exclusive scan of the counts (count[cells] = 0 gives
  // start[cells] = n) -> counts zeroed -> library stable sort of (bucket, index) pairs -> ranks
  // from the sorted order -> the same scatter.
  void library_rebucket() {
    const int cells1 = static_cast<int>(grid_.cells() + 1);
    count_kernel<<<blocks_for(n_, kThreads), kThreads, 0, s_>>>(grid_, fd(Field::x), fd(Field::y), fd(Field::z), n_, cell_.data(),
                                                         rank_.data(), count_.data());
    COPA_GPU_CHECK_LAUNCH("count_kernel");
    std::size_t bytes = library_temp_.size();
    COPA_GPU_CHECK(copa::gpu_cub::DeviceScan::ExclusiveSum(library_temp_.data(), bytes, count_.data(), start_.data(), cells1, s_));
    copa::gpu::fill_zero(count_.data(), count_.bytes(), s_);
    bytes = library_temp_.size();
    COPA_GPU_CHECK(copa::gpu_cub::DeviceRadixSort::SortPairs(library_temp_.data(), bytes, cell_.data(), cell_sorted_.data(),
                                                      iota_.data(), order_.data(), n_, 0, key_bits(), s_));
    rank_from_order_kernel<<<blocks_for(n_, kThreads), kThreads, 0, s_>>>(order_.data(), cell_.data(), start_.data(), n_, rank_.data());
    COPA_GPU_CHECK_LAUNCH("rank_from_order_kernel");
    scatter();
  }
#else
  void prepare_library_sort() {}
  void library_rebucket() {}
#endif

  template <bool CellRows>
  void launch_fine_lean(double re) {
    const BucketsView b = buckets();
    const View v = view();
    const unsigned blocks = blocks_for(n_, kThreads);
    double *x = fd(Field::x), *y = fd(Field::y), *z = fd(Field::z), *out = fd(Field::n);
    if (CellRows && b.order)
      fine_lean_cellrows_density_kernel<false><<<blocks, kThreads, 0, s_>>>(x, y, z, b, n_, re, v.load_id, v.targets, out);
    else if (CellRows)
      fine_lean_cellrows_density_kernel<true><<<blocks, kThreads, 0, s_>>>(x, y, z, b, n_, re, v.load_id, v.targets, out);
    else if (b.order)
      fine_lean_density_kernel<false><<<blocks, kThreads, 0, s_>>>(x, y, z, b, n_, re, v.load_id, v.targets, out);
    else
      fine_lean_density_kernel<true><<<blocks, kThreads, 0, s_>>>(x, y, z, b, n_, re, v.load_id, v.targets, out);
    COPA_GPU_CHECK_LAUNCH(CellRows ? "fine_lean_cellrows_density_kernel" : "fine_lean_density_kernel");
  }

  void launch_fp32_fine(float re) {
    const View v = view();
    density_fp32_fine_kernel<<<blocks_for(static_cast<std::size_t>(n_), kThreads), kThreads, 0, s_>>>(
        q_.data(), fd(Field::x), fd(Field::y), fd(Field::z), buckets(), n_, re, v.load_id, v.targets, fd(Field::n));
    COPA_GPU_CHECK_LAUNCH("density_fp32_fine_kernel");
  }

  void build_verlet() {
    const double rl2 = list_radius_ * list_radius_;
    if (list_count_.size() != static_cast<std::size_t>(n_)) list_count_ = DeviceArray<int>(n_);
    copa::gpu::fill_zero(scalars_.data(), sizeof(unsigned long long));
    int* capacity = reinterpret_cast<int*>(scalars_.data());
    verlet_count_kernel<<<blocks_for(n_, kThreads), kThreads>>>(view(), buckets(), rl2, list_count_.data(), capacity);
    COPA_GPU_CHECK_LAUNCH("verlet_count_kernel");
    int cap = 0;
    copa::gpu::copy_to_host(&cap, capacity, sizeof(cap));
    copa::gpu::synchronize();
    if (static_cast<std::size_t>(cap) * n_ > list_.size()) {
      list_ = DeviceArray<int>(0);
      const std::size_t want = static_cast<std::size_t>(cap + cap / 8 + 1) * n_;
      copa::gpu::require_device_memory(want * sizeof(int), "verlet lists");
      list_ = DeviceArray<int>(want);
    }
    capacity_ = cap;
    verlet_fill_kernel<<<blocks_for(n_, kThreads), kThreads>>>(view(), buckets(), rl2, list_.data());
    COPA_GPU_CHECK_LAUNCH("verlet_fill_kernel");
    if (xb_.size() != static_cast<std::size_t>(n_)) {
      xb_ = DeviceArray<double>(n_);
      yb_ = DeviceArray<double>(n_);
      zb_ = DeviceArray<double>(n_);
    }
    copa::gpu::copy_on_device(xb_.data(), fd(Field::x), sizeof(double) * n_);
    copa::gpu::copy_on_device(yb_.data(), fd(Field::y), sizeof(double) * n_);
    copa::gpu::copy_on_device(zb_.data(), fd(Field::z), sizeof(double) * n_);
    lists_valid_ = true;
    ++rebuilds_;
  }

  template <class Op>
  void run(const Op& op) {
    if (n_ == 0) return;
    const View v = view();
    const BucketsView b = buckets();
    switch (opt_.strategy) {
      case Strategy::brute:
        throw copa::InputError("--variant brute is the serial oracle only");
      case Strategy::bucket_block: {
        // 64 threads (two warps; one wavefront on HIP): buckets hold ~10-35 particles.
        bucket_block_kernel<<<static_cast<unsigned>(grid_.cells()), 64, 0, s_>>>(v, b, op);
        COPA_GPU_CHECK_LAUNCH("bucket_block_kernel");
        break;
      }
      case Strategy::bucket_thread:
        bucket_thread_kernel<<<blocks_for(grid_.cells(), 128), 128, 0, s_>>>(v, b, op, grid_.cells());
        COPA_GPU_CHECK_LAUNCH("bucket_thread_kernel");
        break;
      case Strategy::sorted_particle:
        sorted_particle_kernel<<<blocks_for(n_, kThreads), kThreads, 0, s_>>>(v, b, op);
        COPA_GPU_CHECK_LAUNCH("sorted_particle_kernel");
        break;
      case Strategy::verlet:
        verlet_kernel<<<blocks_for(n_, kThreads), kThreads, 0, s_>>>(v, VerletView{list_.data(), list_count_.data(), n_, capacity_}, op);
        COPA_GPU_CHECK_LAUNCH("verlet_kernel");
        break;
      case Strategy::fine_rows:
      case Strategy::fine_lean:  // its own kernel for the density only (number_density)
      case Strategy::fine_lean_cellrows:
        fine_rows_kernel<Op><<<blocks_for(n_, kThreads), kThreads, 0, s_>>>(v, b, op);
        COPA_GPU_CHECK_LAUNCH("fine_rows_kernel");
        break;
    }
  }

  KernelOptions opt_;
  int n_ = 0;
  int ghosts_ = 0;  // Problem::ghosts: the last particles in load order are sources only
  Grid grid_;
  double skin_ = 0, list_radius_ = 0, reach_ = 0;
  std::array<DeviceArray<double>, field_count> f_;
  std::array<DeviceArray<double>, 7> scratch_;
  DeviceArray<double> xb_, yb_, zb_, partial_, cg_scalars_;
  DeviceArray<std::uint8_t> type_, type_tmp_, active_;
  DeviceArray<double> gid_;  // global id of every local particle, by load index (distributed runs)
  bool have_global_ids_ = false;
  DeviceArray<int> id_, id_tmp_, cell_, rank_, order_, count_, start_, totals_, list_, list_count_;
  DeviceArray<unsigned long long> scalars_;
  DeviceArray<float4> q_;
  DeviceArray<double> halo_;  // ghost fill of a distributed run (fill_ghosts)
  DeviceArray<double> halo_field_;  // ghost refresh of one field (distributed simulation)
  DeviceArray<double> x_ref_, y_ref_, z_ref_;  // remember_positions (load order)
  int scan_blocks_ = 0, capacity_ = 0, rebuilds_ = 0;
  DeviceArray<int> iota_, cell_sorted_;  // --rebucket cub
  DeviceArray<int> part_;                // --rebucket fused: block-local exclusive scan of the counts
  DeviceArray<unsigned> ticket_;         // --rebucket fused: blocks of the scan that have finished
  DeviceArray<unsigned char> library_temp_;
  bool lists_valid_ = false;
  // The stream of the capturable launches: the default stream, or capture_stream_ while capturing.
  copa::gpu::stream_t s_ = nullptr;
  copa::gpu::stream_t capture_stream_ = nullptr;
  std::vector<Captured> graphs_;  // step=graph
  int buffers_ = 0;
};

// The device rebuild of a distributed simulation (README "Distributed runs", device-side
// migration). Only record counts (one int per destination), the records that cross ranks and
// the ghost send lists (load indices) cross to the host; the particle arrays stay on the device.
RebuiltLayout GpuKernels::migrate_on_device(const DeviceRebuild& plan, std::size_t owned) {
  if (!have_global_ids_) throw copa::RuntimeError("migrate_on_device: the global ids of the particles were not set");
  if (owned > static_cast<std::size_t>(n_)) throw copa::RuntimeError("migrate_on_device: more owned particles than local ones");
  const int ranks = plan.ranks, me = plan.rank, own = static_cast<int>(owned);
  RebuiltLayout out;
  DeviceArray<int> cuts(ranks + 1);
  cuts.copy_from_host(plan.cuts.data());

  // 1. The owned particles as records in global id order, and the owner of each one's column.
  DeviceArray<double> rec(static_cast<std::size_t>(own) * kRecord);
  DeviceArray<int> dest(own), flag(own), pos(own + 1);
  if (own > 0) {
    owned_records_kernel<<<blocks_for(n_, kThreads), kThreads>>>(state(), gid_.data(), id_.data(), n_, own, rec.data());
    COPA_GPU_CHECK_LAUNCH("owned_records_kernel");
    // The cuts count columns of the problem's bucket grid (dist::column_of), not of grid_, the
    // search grid: refined for the fine strategies, widened for verlet.
    destination_kernel<<<blocks_for(own, kThreads), kThreads>>>(rec.data(), own, plan.frame->grid, plan.axis, cuts.data(),
                                                                ranks, dest.data());
    COPA_GPU_CHECK_LAUNCH("destination_kernel");
  }

  // 2. Per destination: flag, scan, compaction (the order of the records is kept).
  std::vector<std::vector<double>> outgoing(ranks);
  DeviceArray<double> kept;
  int kept_count = 0;
  for (int q = 0; q < ranks && own > 0; ++q) {
    match_kernel<<<blocks_for(own, kThreads), kThreads>>>(dest.data(), own, q, flag.data());
    COPA_GPU_CHECK_LAUNCH("match_kernel");
    const int c = exclusive_scan(flag.data(), pos.data(), own);
    if (c == 0) continue;
    DeviceArray<double> buffer(static_cast<std::size_t>(c) * kRecord);
    compact_records_kernel<<<blocks_for(own, kThreads), kThreads>>>(rec.data(), pos.data(), own, buffer.data(), nullptr);
    COPA_GPU_CHECK_LAUNCH("compact_records_kernel");
    if (q == me) {
      kept = std::move(buffer);
      kept_count = c;
      continue;
    }
    outgoing[q].resize(buffer.size());
    buffer.copy_to_host(outgoing[q].data());
    out.sent += c;
  }

  // 3. Exchange; the kept block, then one block per source, merged in global id order.
  std::vector<int> from;
  const std::vector<double> arrived = plan.exchange(outgoing, &from);
  const int arrived_count = static_cast<int>(from.size());
  const int owned_new = kept_count + arrived_count;
  std::vector<int> block_start{0};
  for (int k = 0; k < arrived_count; ++k)
    if (k == 0 || from[k] != from[k - 1]) block_start.push_back(kept_count + k);
  block_start.push_back(owned_new);
  const int blocks = static_cast<int>(block_start.size()) - 1;
  DeviceArray<double> merged(static_cast<std::size_t>(owned_new) * kRecord);
  if (owned_new > 0) {
    DeviceArray<double> both(static_cast<std::size_t>(owned_new) * kRecord);
    if (kept_count > 0) copa::gpu::copy_on_device(both.data(), kept.data(), kept.bytes());
    if (arrived_count > 0)
      copa::gpu::copy_to_device(both.data() + static_cast<std::size_t>(kept_count) * kRecord, arrived.data(),
                                arrived.size() * sizeof(double));
    DeviceArray<int> starts(block_start.size());
    starts.copy_from_host(block_start.data());
    merge_records_kernel<<<blocks_for(owned_new, kThreads), kThreads>>>(both.data(), owned_new, starts.data(), blocks,
                                                                        merged.data());
    COPA_GPU_CHECK_LAUNCH("merge_records_kernel");
    copa::gpu::synchronize();  // `arrived` and `block_start` are host memory the copies read
  }

  // 4. Ghosts: for every other rank, the owned records within its widened slab, packed the same way.
  std::vector<std::vector<double>> ghost_out(ranks);
  out.send.assign(ranks, {});
  out.recv.assign(ranks, {});
  DeviceArray<int> band(owned_new), band_pos(owned_new + 1);
  for (int q = 0; q < ranks && owned_new > 0; ++q) {
    if (q == me) continue;
    band_kernel<<<blocks_for(owned_new, kThreads), kThreads>>>(merged.data(), owned_new, plan.axis, plan.lo[q], plan.hi[q],
                                                               band.data());
    COPA_GPU_CHECK_LAUNCH("band_kernel");
    const int c = exclusive_scan(band.data(), band_pos.data(), owned_new);
    if (c == 0) continue;
    DeviceArray<double> buffer(static_cast<std::size_t>(c) * kRecord);
    DeviceArray<long long> index(c);
    compact_records_kernel<<<blocks_for(owned_new, kThreads), kThreads>>>(merged.data(), band_pos.data(), owned_new,
                                                                          buffer.data(), index.data());
    COPA_GPU_CHECK_LAUNCH("compact_records_kernel");
    ghost_out[q].resize(buffer.size());
    buffer.copy_to_host(ghost_out[q].data());
    std::vector<long long> sent(c);
    index.copy_to_host(sent.data());
    out.send[q].assign(sent.begin(), sent.end());
  }
  const std::vector<double> ghosts = plan.exchange(ghost_out, &from);
  const int ghost_count = static_cast<int>(from.size());
  for (int k = 0; k < ghost_count; ++k) out.recv[from[k]].push_back(static_cast<std::int64_t>(owned_new) + k);

  // 5. The new state: owned, then ghosts, in load order; then the global ids back for the census.
  const int n = owned_new + ghost_count;
  DeviceArray<double> all(static_cast<std::size_t>(n) * kRecord);
  if (owned_new > 0) copa::gpu::copy_on_device(all.data(), merged.data(), merged.bytes());
  if (ghost_count > 0)
    copa::gpu::copy_to_device(all.data() + static_cast<std::size_t>(owned_new) * kRecord, ghosts.data(),
                              ghosts.size() * sizeof(double));
  allocate(*plan.frame, plan.max_radius, n, ghost_count);
  if (n > 0) {
    records_to_state_kernel<<<blocks_for(n, kThreads), kThreads>>>(all.data(), n, state(), gid_.data());
    COPA_GPU_CHECK_LAUNCH("records_to_state_kernel");
  }
  std::vector<double> ids(n);
  if (n > 0) gid_.copy_to_host(ids.data());
  copa::gpu::synchronize();
  have_global_ids_ = true;
  out.owned = owned_new;
  out.global_ids.assign(ids.begin(), ids.end());
  return out;
}

}  // namespace

std::unique_ptr<MpsKernels> make_gpu_kernels(const KernelOptions& o) { return std::make_unique<GpuKernels>(o); }

}  // namespace mps

