// The regrid's criterion and flags on the device: the criterion byte per cell, the flags of the
// sons, the buffer passes and the 2:1 balance, through the bodies of amr_flags_body.hpp.
#include "amr/amr_gpu_step.cuh"

namespace ro::amr::gpu {

// The regrid's criterion byte of every cell of the current tree (amr_flags_body.hpp; the
// passes below and emulate_device_flags follow the same order), a missing neighbour or-ed into
// the error word.
__global__ void criterion_kernel(TreeView v, const double* __restrict__ u, long long ncell, CriterionParams p,
                                 char* __restrict__ crit, unsigned* __restrict__ error) {
  copa::gpu::wait_for_prior_grid();
  const long long g = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (g >= ncell) return;
  const char b = criterion_byte(v, u, ncell, g, p);
  crit[g] = b;
  if (b == 2) atomicOr(error, flags_error_missing_neighbour);
}

// The flags' son pass over the cells [first, last) of one level (the level below was done by
// the launch before).
__global__ void flags_sons_kernel(const std::int32_t* __restrict__ son, const char* __restrict__ crit, char* flag,
                                  long long first, long long last, bool sons_finest) {
  copa::gpu::wait_for_prior_grid();
  const long long g = first + blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (g < last) flags_from_sons(son, crit, flag, g, sons_finest);
}

// Whether oct o has a flagged cell, in one 8-byte load (the allocation is aligned, an oct's flags
// are 8 consecutive bytes): most octs have none, and their slot threads leave before any work.
__device__ inline bool oct_has_flag(const char* flag, long long o) {
  return reinterpret_cast<const unsigned long long*>(flag)[o] != 0;
}

// The buffer, every oct below the finest level, one thread per (oct, slot) (flags_buffer_slot: at
// most one hash probe each; one thread per oct probing up to 27 slots in series took 45.8 us on
// the H200 for Sedov 64^3 + 2, the first per-slot form 58.1 us): reads the flags before it (in) and stores 1 into their copy (out;
// the same byte from several threads: any order gives the same flags).
__global__ void flags_buffer_kernel(PlanView v, const char* __restrict__ in, char* __restrict__ out, long long ncoarse) {
  copa::gpu::wait_for_prior_grid();
  const long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (k >= ncoarse * 27) return;
  const long long o = k / 27;
  if (!oct_has_flag(in, o)) return;
  flags_buffer_slot(v, in, o, int(k % 27), [out](long long g) { out[g] = 1; });
}

// The 2:1 balance of one level l >= 1, octs [first, last), one thread per (oct, slot): reads level
// l's flags and stores 1 into level l - 1's (the same byte from several threads: any order gives
// the same flags). Octs without a flagged cell leave at once (oct_has_flag), as in the buffer.
__global__ void flags_balance_kernel(PlanView v, char* flag, long long first, long long last,
                                     unsigned* __restrict__ error) {
  copa::gpu::wait_for_prior_grid();
  const long long k = first * 27 + blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (k >= last * 27) return;
  const long long o = k / 27;
  if (!oct_has_flag(flag, o)) return;
  if (!flags_balance_slot(v, flag, o, int(k % 27), [flag](long long g) { flag[g] = 1; }))
    atomicOr(error, flags_error_unbalanced);
}

void GpuAmrStep::upload_flags(const std::vector<char>& flag) {
  flags_error_to_check_ = nullptr;
  copa::gpu::require_device_memory(flag_.growth(flag.size()), "ramses-oct AMR regrid flags");
  char* h = staging_.reserve(flag.size());
  std::size_t at = 0;
  put(h, at, flag_, flag);
  copa::gpu::synchronize();
}

void GpuAmrStep::criterion(const RefineCriterion& rc, double gamma) {
  const long long ncell = noct_ * 8;
  copa::gpu::require_device_memory(crit_.growth(ncell) + flag_.growth(ncell) + flag_next_.growth(ncell) +
                                       flags_error_.growth(1),
                                   "ramses-oct AMR regrid criterion and flags");
  crit_.resize(ncell);
  flag_.resize(ncell);
  flag_next_.resize(ncell);
  flags_error_.resize(1);
  copa::gpu::fill_zero(flags_error_.data(), flags_error_.bytes());
  const CriterionParams p = criterion_params(rc, gamma, dx0_);
  buffer_passes_ = p.buffer;
  if (ncell > 0) {
    COPA_GPU_LAUNCH_DEPENDENT("amr criterion_kernel", criterion_kernel, copa::gpu::blocks_for(ncell, 128), 128,
                              view(), u_.data(), ncell, p, crit_.data(), flags_error_.data());
  }
  end_regrid_part();
}

// The passes of amr_flags_body.hpp in emulate_device_flags's order: the son pass one launch
// per level (finest first), the buffer one launch per pass (--refine-buffer) reading flag_ and
// storing into its copy flag_next_ (then swapped), the balance one launch per level l >= 1
// (finest first). The flags
// stay in flag_ for rebuild(), whose count copy brings the error word up (one wait fewer per
// regrid than a copy of its own here) and which throws before using any count.
void GpuAmrStep::refinement_flags() {
  const long long ncoarse = level_begin_[max_level_];
  const PlanView v = plan_view();
  // Over ranks: the bytes this rank's criterion wrote for its owned cells combined with every
  // owner's (the host's Allgatherv), through host memory (one byte per cell both ways).
  if (ranks_ && ranks_->criterion) {
    std::vector<char> crit;
    fetch(crit_, crit);
    copa::gpu::synchronize();
    ranks_->criterion(crit);
    char* h = staging_.reserve(crit.size());
    std::size_t at = 0;
    put(h, at, crit_, crit);
    copa::gpu::synchronize();
  }
  copa::gpu::fill_zero(flag_.data(), flag_.bytes());
  for (int l = max_level_ - 1; l >= 0; --l) {
    const long long first = level_begin_[l] * 8, last = level_begin_[l + 1] * 8;
    if (last == first) continue;
    COPA_GPU_LAUNCH_DEPENDENT("amr flags_sons_kernel", flags_sons_kernel, copa::gpu::blocks_for(last - first, 256),
                              256, son_.data(), crit_.data(), flag_.data(), first, last, l + 1 == max_level_);
  }
  for (int pass = 0; pass < buffer_passes_ && ncoarse > 0; ++pass) {
    copa::gpu::copy_on_device(flag_next_.data(), flag_.data(), flag_.bytes());
    COPA_GPU_LAUNCH_DEPENDENT("amr flags_buffer_kernel", flags_buffer_kernel,
                              copa::gpu::blocks_for(ncoarse * 27, 128), 128, v, flag_.data(), flag_next_.data(),
                              ncoarse);
    flag_.swap(flag_next_);
  }
  for (int l = max_level_ - 1; l >= 1; --l) {
    const long long first = level_begin_[l], last = level_begin_[l + 1];
    if (last == first) continue;
    COPA_GPU_LAUNCH_DEPENDENT("amr flags_balance_kernel", flags_balance_kernel,
                              copa::gpu::blocks_for((last - first) * 27, 128), 128, v, flag_.data(), first, last,
                              flags_error_.data());
  }
  flags_error_to_check_ = flags_error_.data();
}

}  // namespace ro::amr::gpu
