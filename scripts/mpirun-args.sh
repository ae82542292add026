# Sourced (not run) by every app's bench/dist.sh: the one MPI launch line of copa's distributed
# benchmarks, as the array MPIRUN. $COPA_MPIRUN when set (scripts/gpu-check-dist exports it), else
# OpenMPI's mpirun with --oversubscribe (ranks may share a GPU or cores), --allow-run-as-root when run
# as root, shared-memory transfers by CMA (the default single-copy mechanism fails in containers
# without ptrace rights), and NCCL_NVLS_ENABLE=0 handed to every rank: never NVLink multicast on these
# machines (DISTRIBUTED.md).
export NCCL_NVLS_ENABLE=0
if [[ -n "${COPA_MPIRUN:-}" ]]; then
  read -r -a MPIRUN <<< "$COPA_MPIRUN"
else
  MPIRUN=(mpirun --oversubscribe -x NCCL_NVLS_ENABLE --mca btl_vader_single_copy_mechanism cma)
  [[ $(id -u) -eq 0 ]] && MPIRUN+=(--allow-run-as-root)
fi
