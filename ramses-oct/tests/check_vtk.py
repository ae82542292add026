"""Reads ramses-oct's --vtk output back with VTK's own readers and checks it against the run's JSON.

usage: check_vtk.py DIR JSON vti|vtu [--every N] [--profile CSV]
- an AMR run (--levels > 0, vtu): one hexahedron per leaf cell (JSON amr.leaf_cells) of the level's
  size, their volumes add up to the box (no cell covered twice or missing), and on a periodic box
  the mass is the initial mass (conserved by refluxing) to 1e-12;
- vti: the image has the run's cells per axis and spacing 1 / nx; vtu (--vtk-cells): one hexahedron
  per cell, their volumes add up to the box;
- total mass = sum of density x cell volume equals the run's (JSON vtk.mass_total, the compensated
  sum of the state) to 1e-12, and on a periodic box the initial mass (conserved) to 1e-12;
- with --profile (sod's --profile CSV: x, rho, u, p along x): the density of the cells (i, 0, 0)
  is the CSV's (12 digits): the cells are where the image says they are;
- density and pressure are positive, velocity has 3 components;
- with --every: the .pvd lists step 0, every EVERY-th step and the last, whose time is the run's t_final.
"""
import argparse
import csv
import json
import sys
from pathlib import Path

import numpy as np
import vtk
from vtk.util.numpy_support import vtk_to_numpy

from vtk_readback import read, series, steps_written


def cell_volumes(data, kind, cells):
    if kind == "vti":
        dims = [d - 1 for d in data.GetDimensions()]
        if dims != cells:
            sys.exit(f"image of {dims} cells, the run had {cells}")
        sp = data.GetSpacing()
        if abs(sp[0] - 1.0 / cells[0]) > 1e-15:
            sys.exit(f"spacing {sp}")
        return np.full(data.GetNumberOfCells(), sp[0] * sp[1] * sp[2])
    if set(vtk_to_numpy(data.GetCellTypesArray()).tolist()) != {vtk.VTK_HEXAHEDRON}:
        sys.exit("cells other than hexahedra")
    pts = vtk_to_numpy(data.GetPoints().GetData()).reshape(-1, 8, 3)
    edge = pts[:, 6, :] - pts[:, 0, :]
    return np.prod(edge, axis=1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir", type=Path)
    ap.add_argument("json", type=Path)
    ap.add_argument("kind", choices=["vti", "vtu"])
    ap.add_argument("--every", type=int, default=0)
    ap.add_argument("--profile", type=Path)
    args = ap.parse_args()
    out, result, kind = args.dir, json.loads(args.json.read_text()), args.kind
    problem = result["run"]["problem"]
    cells = problem["cells"]
    data = read(out / f"ramses-oct.{kind}")
    n = data.GetNumberOfCells()
    amr = problem.get("amr")
    want = amr["leaf_cells"] if amr else cells[0] * cells[1] * cells[2]
    if n != want:
        sys.exit(f"{n} cells, the run had {want}")
    vol = cell_volumes(data, kind, cells)
    box = cells[0] * cells[1] * cells[2] / cells[0] ** 3
    if abs(vol.sum() - box) > 1e-12 * box:
        sys.exit(f"cell volumes add up to {vol.sum()}, the box is {box}")
    if amr:
        levels = sorted({round(np.log2(1 / (float(v) ** (1 / 3) * cells[0]))) for v in vol})
        if levels[0] < 0 or levels[-1] > amr["levels"]:
            sys.exit(f"cells of levels {levels}, the run had 0..{amr['levels']}")
        print(f"AMR leaf cells of levels {levels}")
    cd = data.GetCellData()
    rho, p = vtk_to_numpy(cd.GetArray("density")), vtk_to_numpy(cd.GetArray("pressure"))
    if cd.GetArray("velocity").GetNumberOfComponents() != 3 or rho.min() <= 0 or p.min() <= 0:
        sys.exit("velocity is not a vector, or a density or pressure is not positive")
    mass = float(np.sum(rho * vol))
    if not amr:
        run_mass = result["vtk"]["mass_total"]
        if abs(mass - run_mass) > 1e-12 * run_mass:
            sys.exit(f"mass of the file {mass!r} vs the run's {run_mass!r}")
    if problem["bc"] == "periodic" and abs(mass - box) > 1e-12 * box:  # density 1 at t = 0, conserved
        sys.exit(f"mass {mass!r} vs the initial {box!r}")
    if args.profile:
        rows = list(csv.DictReader(args.profile.open()))
        if kind != "vti" or len(rows) != cells[0]:
            sys.exit(f"--profile needs a .vti and one row per x cell ({len(rows)} rows)")
        for i, row in enumerate(rows):
            if abs(rho[i] - float(row["rho"])) > 1e-10 * float(row["rho"]):
                sys.exit(f"cell ({i}, 0, 0): density {rho[i]!r}, the profile's {row['rho']}")
        print(f"densities along x match the profile ({len(rows)} cells)")
    print(f"ramses-oct.{kind}: {n} cells, mass {mass!r} as in the JSON")
    if args.every:
        entries = series(out / "ramses-oct.pvd")
        got = [step for _, step, _ in entries]
        want = steps_written(problem["steps"], args.every)
        if got != want:
            sys.exit(f".pvd lists steps {got}, expected {want}")
        last_time = entries[-1][2]
        if abs(last_time - problem["t_final"]) > 1e-15:
            sys.exit(f"last time {last_time} vs t_final {problem['t_final']}")
        first = read(out / entries[0][0])
        m0 = float(np.sum(vtk_to_numpy(first.GetCellData().GetArray("density")) * cell_volumes(first, kind, cells)))
        if abs(m0 - mass) > 1e-12 * mass:
            sys.exit(f"mass at step 0 {m0!r} vs the end {mass!r}")
        print(f"ramses-oct.pvd: steps {got}")


main()
