"""Reads ramses-oct's --vtk output of a run over MPI ranks (a .pvtu naming one .vtu piece per rank)
back with VTK's vtkXMLPUnstructuredGridReader and compares it with a one-rank run's .vti.

usage: check_pvtu.py DIR JSON ONE_RANK_DIR --ranks R [--every N]
- DIR/ramses-oct.pvtu names R pieces ramses-oct_p<r>.vtu (<stem>_p<r>.vtu for each .pvtu), every one of them present and holding
  cells (each rank writes its owned cells, nothing gathered);
- the hexahedra are the run's cells, each exactly once: their integer positions (lowest corner
  over dx = 1 / nx) cover the nx x ny x nz grid, and every edge is dx;
- total mass = sum of density x cell volume equals the run's (JSON vtk.mass_total) to 1e-12;
- cell by cell (matched by position) density, velocity, pressure and energy density equal the
  one-rank run's ONE_RANK_DIR/ramses-oct.vti bit for bit: a distributed update uses the same
  operands in the same order as one rank (README, --compare-one-rank);
- with --every: DIR/ramses-oct.pvd lists a .pvtu for step 0, every N-th step and the last (time
  t_final), and each one equals the one-rank series' .vti of the same step bit for bit.
"""
import json
import sys

import numpy as np
import vtk
from vtk.util.numpy_support import vtk_to_numpy

from vtk_readback import pvtu_arguments, pvtu_pieces, read, series, steps_written

FIELDS = ["density", "velocity", "pressure", "energy_density"]


def fields(data):
    cd = data.GetCellData()
    out = {}
    for name in FIELDS:
        a = cd.GetArray(name)
        if a is None:
            sys.exit(f"no cell array {name}")
        out[name] = vtk_to_numpy(a).reshape(data.GetNumberOfCells(), -1)
    return out


def check_against_one_rank(pvtu, vti, cells, ranks):
    """The image index (i + nx (j + ny k)) of every cell of the .pvtu, checked against the .vti."""
    for piece in pvtu_pieces(pvtu, ranks):
        if read(piece).GetNumberOfCells() == 0:
            sys.exit(f"{piece.name}: without cells")
    data = read(pvtu)
    nx, ny, nz = cells
    n = data.GetNumberOfCells()
    if n != nx * ny * nz:
        sys.exit(f"{pvtu.name}: {n} cells, the run had {nx * ny * nz}")
    if set(vtk_to_numpy(data.GetCellTypesArray()).tolist()) != {vtk.VTK_HEXAHEDRON}:
        sys.exit(f"{pvtu.name}: cells other than hexahedra")
    dx = 1.0 / nx
    pts = vtk_to_numpy(data.GetPoints().GetData()).reshape(-1, 8, 3)
    if np.abs(pts[:, 6, :] - pts[:, 0, :] - dx).max() > 1e-12 * dx:
        sys.exit(f"{pvtu.name}: a cell's edge is not dx = {dx}")
    ijk = np.rint(pts[:, 0, :] / dx).astype(np.int64)
    index = ijk[:, 0] + nx * (ijk[:, 1] + ny * ijk[:, 2])
    if ijk.min() < 0 or (ijk >= np.array(cells)).any() or len(np.unique(index)) != n:
        sys.exit(f"{pvtu.name}: the cells do not cover the {nx}x{ny}x{nz} grid once each")
    one = read(vti)
    if [d - 1 for d in one.GetDimensions()] != list(cells):
        sys.exit(f"{vti}: not the run's {cells} cells")
    got, want = fields(data), fields(one)
    for name in FIELDS:
        if not np.array_equal(got[name], want[name][index]):
            diff = np.abs(got[name] - want[name][index]).max()
            sys.exit(f"{pvtu.name}: {name} differs from the one-rank {vti.name} (max |difference| {diff!r})")
    return float(np.sum(got["density"][:, 0]) * dx ** 3)


def main():
    args = pvtu_arguments()
    out, result = args.dir, json.loads(args.json.read_text())
    problem = result["run"]["problem"]
    cells = problem["cells"]
    mass = check_against_one_rank(out / "ramses-oct.pvtu", args.one_rank_dir / "ramses-oct.vti", cells, args.ranks)
    run_mass = result["vtk"]["mass_total"]
    if abs(mass - run_mass) > 1e-12 * run_mass:
        sys.exit(f"mass of the .pvtu {mass!r} vs the run's {run_mass!r}")
    print(f"ramses-oct.pvtu: {args.ranks} pieces, the one-rank .vti's fields bit for bit, mass {mass!r} as in the JSON")
    if args.every:
        entries = series(out / "ramses-oct.pvd")
        files, got = [f for f, _, _ in entries], [step for _, step, _ in entries]
        want = steps_written(problem["steps"], args.every)
        if got != want or any(not f.endswith(".pvtu") for f in files):
            sys.exit(f".pvd lists {files}, expected .pvtu files of steps {want}")
        last_time = entries[-1][2]
        if abs(last_time - problem["t_final"]) > 1e-15:
            sys.exit(f"last time {last_time} vs t_final {problem['t_final']}")
        for f in files:
            check_against_one_rank(out / f, args.one_rank_dir / f.replace(".pvtu", ".vti"), cells, args.ranks)
        print(f"ramses-oct.pvd: steps {got}, each .pvtu equal to the one-rank .vti of its step")


main()
