"""Collects the JSON of bench/precision-study.sh into OUT/precision-study.json and draws
OUT/precision-study.png: time to solution (IRS against the FP64 LU of the same matrix), the
solution's error against the LU and the RMS dB error against Mie, per precision, against N; and
the condition estimate per formulation. usage: precision_study.py OUT"""
import glob
import json
import os
import sys


def row(path):
    with open(path) as f:
        d = json.load(f)
    s = d.get("solution", {})
    p = d["run"]["problem"] if "problem" in d.get("run", {}) else d.get("problem", {})
    return {
        "run": os.path.basename(path)[:-5],
        "backend": d["run"].get("backend"),
        "formulation": p.get("formulation"),
        "ka": p.get("ka"),
        "elements_per_wavelength": p.get("elements_per_wavelength"),
        "unknowns": p.get("unknowns"),
        "solver": s.get("solver"),
        "refinement": s.get("refinement"),
        "niters": s.get("niters"),
        "converged": s.get("converged"),
        "fell_back": s.get("fell_back"),
        "solve_s": s.get("solve_s"),
        "lu_solve_s": s.get("lu_solve_s"),
        "speedup_vs_lu": s.get("speedup_vs_lu"),
        "relative_residual": s.get("relative_residual"),
        "relative_residual_lu": s.get("relative_residual_lu"),
        "solution_rel_error_vs_lu": s.get("solution_rel_error_vs_lu"),
        "rcs_rel_error_vs_lu": s.get("rcs_rel_error_vs_lu"),
        "rms_db_error": s.get("rms_db_error"),
        "rms_db_error_lu": s.get("rms_db_error_lu"),
        "condition_estimate_1norm": s.get("condition_estimate_1norm"),
        "verification_passed": d.get("verification", {}).get("passed"),
    }


def main(out):
    rows = []
    for path in sorted(glob.glob(os.path.join(out, "ka*_epw*.json"))):
        try:
            rows.append(row(path))
        except (KeyError, json.JSONDecodeError) as e:
            print(f"skipped {path}: {e}")
    rows.sort(key=lambda r: (r["formulation"] or "", r["unknowns"] or 0, r["solver"] or "", r["refinement"] or ""))
    with open(os.path.join(out, "precision-study.json"), "w") as f:
        json.dump({"schema": "mom-efie-precision-study/1", "rows": rows}, f, indent=1)
    print(f"{'run':44s} {'N':>6s} {'niters':>6s} {'fb':>3s} {'IRS ms':>9s} {'LU ms':>9s} {'x':>5s} {'res':>8s} {'dx vs LU':>9s} {'dB':>7s} {'cond':>8s}")
    for r in rows:
        if r["solve_s"] is None:
            continue
        print(f"{r['run']:44s} {r['unknowns']:6d} {r['niters'] if r['niters'] is not None else '-':>6} "
              f"{'y' if r['fell_back'] else 'n':>3s} {1e3 * r['solve_s']:9.2f} {1e3 * (r['lu_solve_s'] or 0):9.2f} "
              f"{r['speedup_vs_lu'] or 0:5.2f} {r['relative_residual'] or 0:8.1e} {r['solution_rel_error_vs_lu'] or 0:9.1e} "
              f"{r['rms_db_error'] if r['rms_db_error'] is not None else float('nan'):7.3f} {r['condition_estimate_1norm'] or 0:8.3g}")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib not found: no chart")
        return
    fig, axes = plt.subplots(1, 4, figsize=(22, 5))
    markers = {"efie": "o", "cfie": "s", "mfie": "^"}
    solvers = sorted({r["solver"] for r in rows if r["solver"]})
    colours = {s: plt.cm.tab10(i) for i, s in enumerate(solvers + ["lu"])}
    lu_done = set()
    # The study's refinement (GMRES on the GPU; the classical extra runs are in the table only).
    main_refinement = "gmres" if any(r["refinement"] == "gmres" for r in rows) else "classical"
    for r in rows:
        if r["solve_s"] is None or r["refinement"] != main_refinement:
            continue
        m = markers.get(r["formulation"], "x")
        n = r["unknowns"]
        hollow = r["fell_back"] or not r["converged"]
        kw = dict(marker=m, color=colours[r["solver"]], linestyle="none")
        axes[0].plot(n, r["solve_s"], markerfacecolor="none" if hollow else colours[r["solver"]], **kw)
        key = (r["formulation"], n)
        if key not in lu_done and r["lu_solve_s"]:
            axes[0].plot(n, r["lu_solve_s"], marker=m, color="k", linestyle="none")
            lu_done.add(key)
        axes[1].plot(n, max(r["solution_rel_error_vs_lu"] or 1e-17, 1e-17), **kw)
        if r["rms_db_error"] is not None:
            axes[2].plot(n, r["rms_db_error"], **kw)
        if r["condition_estimate_1norm"]:
            axes[3].plot(n, r["condition_estimate_1norm"], marker=m, color="k", linestyle="none")
    for ax, title, ylabel in zip(axes, ["time to solution (black: FP64 LU; hollow: fell back / not converged)",
                                        "solution vs FP64 LU (relative 2-norm)", "RCS vs Mie (RMS dB)",
                                        "condition estimate (1-norm)"],
                                 ["s", "relative error", "dB", "kappa_1"]):
        ax.set_xscale("log")
        if ylabel != "dB":
            ax.set_yscale("log")
        ax.set_xlabel("unknowns N")
        ax.set_ylabel(ylabel)
        ax.set_title(title, fontsize=9)
        ax.grid(True, which="both", alpha=0.3)
    handles = [plt.Line2D([], [], color=colours[s], marker="o", linestyle="none", label=s) for s in solvers]
    handles += [plt.Line2D([], [], color="grey", marker=m, linestyle="none", label=f) for f, m in markers.items()]
    axes[0].legend(handles=handles, fontsize=8)
    fig.suptitle("mom-efie: mixed-precision iterative refinement against the FP64 LU, PEC sphere, "
                 f"{main_refinement} refinement")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "precision-study.png"), dpi=110)
    print(f"wrote {os.path.join(out, 'precision-study.json')} and precision-study.png ({len(rows)} runs)")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
