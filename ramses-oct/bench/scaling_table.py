"""ramses-oct's scaling table (bench/dist.sh writes it to OUT/scaling.md; run it again on a folder of
committed results): python3 scaling_table.py OUT NRANKS [PREFIX], with scripts/ on PYTHONPATH.
PREFIX "amr-": the AMR runs (amr-strong-1, amr-strong-P-TR, amr-weak-P-TR; a host backend's over the host
transport only, a GPU backend's over every transport).
Strong: N^3 on 1 and NRANKS ranks, efficiency T1 / (p Tp); weak: N^3 per rank, T1 / Tp; the halo's
GB/s per direction against copa-commbench's for the same transport at the nearest message size
(OUT/../commbench.json, as scripts/gpu-check-dist lays a campaign out; '-' without it)."""
import sys

from dist_table import RunDir, halo_link


def pct(x):
    return f"{100 * x:.0f}%" if x is not None else "-"


def num(x, fmt):
    return format(x, fmt) if x is not None else "-"


def main(out, nranks, prefix=""):
    runs = RunDir(out)
    commbench = runs.commbench()
    print("| mode | transport | ranks | step max (ms) | compute max / mean (ms) | halo (ms) | allreduce (ms) | "
          "comm fraction | halo GB/s per direction | % of link (copa-commbench) | FOM (cell updates/s) | "
          "efficiency | verdict | wall (s) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    base = runs.load(prefix + "strong-1")
    t1 = base["rank_times"]["step_median_s"]["max"] if base else None
    on_gpu = bool(base) and base["run"].get("backend") in ("cuda", "hip")
    for mode in ("strong", "weak"):
        transports = ("host",) if prefix and not on_gpu else ("ipc", "nccl", "host", "cuda-aware")
        for tr in transports:
            for p, name in ((1, prefix + "strong-1"), (nranks, f"{prefix}{mode}-{nranks}-{tr}")):
                if p == 1 and tr != transports[0]:
                    continue
                d = runs.load(name)
                wall, why = runs.log_info(name)
                if d is None:
                    print(f"| {mode} | {tr} | {p} | skipped: {why} | | | | | | | | | | {wall} |")
                    continue
                rt = d["rank_times"]
                step = rt["step_median_s"]["max"]
                comp = rt["compute_median_s"]
                halo = rt["halo_exchange_median_s"]["max"]
                allr = rt["allreduce_median_s"]["max"]
                eff = (t1 / (p * step) if mode == "strong" else t1 / step) if t1 else None
                rate, _, frac = halo_link(d, tr, commbench) if p > 1 else (None, None, None)
                verdict = "PASSED" if d["verification"]["passed"] else "FAILED"
                print(f"| {mode} | {d['run'].get('transport') or tr} | {p} | {step*1e3:.3f} | "
                      f"{comp['max']*1e3:.3f} / {comp['mean']*1e3:.3f} | {halo*1e3:.3f} | {allr*1e3:.3f} | "
                      f"{(halo + allr) / step:.3f} | {num(rate, '.1f')} | {pct(frac)} | {d['fom']['value']:.3e} | "
                      f"{num(eff, '.3f')} | {verdict} | {wall} |")
    print(f"\nOne-rank baseline of both modes: {prefix}strong-1 ({'%.3f ms per step' % (t1 * 1e3) if t1 else 'missing'}). "
          "Efficiency: strong T1 / (p Tp), weak T1 / Tp (N^3 per rank). Times: medians over the timed steps, the "
          "slowest rank's. Halo GB/s: the bytes a rank sends per exchange (one direction of the link) over the "
          "halo row's median; % of link: against copa-commbench's GB/s per direction for the same transport at "
          "the nearest measured message size (ping-pong or 26-neighbour halo, device memory)"
          + ("." if commbench else ": no commbench.json beside this folder, not given."))


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), sys.argv[3] if len(sys.argv) > 3 else "")
