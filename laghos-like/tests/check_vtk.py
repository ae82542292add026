"""Reads laghos-like's --vtk output back with VTK's own reader and checks it against the run's JSON.

usage: check_vtk.py DIR JSON [--every N]
- points = the H1 nodes (h1_dofs / dim), cells = zones x k^dim linear sub-cells (hexahedra in 3D,
  quads in 2D), each sub-cell carrying its element's id;
- the FNV-1a checksum of the written state (positions and velocity per component over the nodes,
  then the Bernstein energy coefficients element after element) equals the run's
  solution.state_checksum: the file holds the final (x, v, e) bit for bit;
- the unit-box walls hold: the extreme nodes sit at 0 and 1 (Sedov's boundary nodes slide along
  the walls) and the density is positive;
- the sub-cells tile the box: every size (vtkCellSizeFilter) is positive and they add up to 1, to
  1e-12 in 2D, to 1e-2 in 3D (VTK splits a hexahedron with non-planar faces into tetrahedra, so
  neighbours' shared faces need not match; a wrong connectivity is off by far more);
- with --every: the .pvd lists step 0, every N-th step and the last; at step 0 the Sedov density
  (mass / volume of each element) is 1 to 1e-12.
"""
import argparse
import json
import sys
from pathlib import Path

import numpy as np
import vtk
from vtk.util.numpy_support import vtk_to_numpy

from vtk_readback import read, series, steps_written


def fnv1a(arrays):
    h = 14695981039346656037
    for a in arrays:
        for byte in np.ascontiguousarray(a, dtype="<f8").tobytes():
            h = ((h ^ byte) * 1099511628211) & 0xFFFFFFFFFFFFFFFF
    return "%016x" % h


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir", type=Path)
    ap.add_argument("json", type=Path)
    ap.add_argument("--every", type=int, default=0)
    args = ap.parse_args()
    result = json.loads(args.json.read_text())
    problem, sol = result["run"]["problem"], result["solution"]
    dim, k = problem["dim"], problem["order_k"]
    g = read(args.dir / "laghos-like.vtu")
    nodes, cells = g.GetNumberOfPoints(), g.GetNumberOfCells()
    if nodes * dim != problem["h1_dofs"] or cells != problem["zones"] * k**dim:
        sys.exit(f"{nodes} points, {cells} cells; the run had {problem['h1_dofs']} H1 dofs, {problem['zones']} zones")
    kind = vtk.VTK_HEXAHEDRON if dim == 3 else vtk.VTK_QUAD
    if set(vtk_to_numpy(g.GetCellTypesArray()).tolist()) != {kind}:
        sys.exit("unexpected cell types")
    x = vtk_to_numpy(g.GetPoints().GetData())
    v = vtk_to_numpy(g.GetPointData().GetArray("velocity"))
    cd = g.GetCellData()
    element = vtk_to_numpy(cd.GetArray("element")).astype(int)
    first = np.searchsorted(element, np.arange(problem["zones"]))  # the first sub-cell of each element
    e = vtk_to_numpy(cd.GetArray("e_bernstein"))[first].ravel()
    got = fnv1a([x[:, c] for c in range(dim)] + [v[:, c] for c in range(dim)] + [e])
    if got != sol["state_checksum"]:
        sys.exit(f"checksum of the file's (x, v, e) {got} != the run's {sol['state_checksum']}")
    lo, hi = x[:, :dim].min(axis=0), x[:, :dim].max(axis=0)
    if np.any(lo != 0.0) or np.any(hi != 1.0):
        sys.exit(f"the nodes span {lo} .. {hi}, not the unit box")
    if vtk_to_numpy(cd.GetArray("density")).min() <= 0:
        sys.exit("a density is not positive")
    sizes = vtk.vtkCellSizeFilter()
    sizes.SetInputData(g)
    sizes.Update()
    size = vtk_to_numpy(sizes.GetOutput().GetCellData().GetArray("Volume" if dim == 3 else "Area"))
    if size.min() <= 0 or abs(size.sum() - 1.0) > (1e-2 if dim == 3 else 1e-12):
        sys.exit(f"sub-cell sizes: min {size.min()}, sum {size.sum()} (the unit box is 1)")
    print(f"laghos-like.vtu: {nodes} nodes, {cells} sub-cells, checksum {got} as in the JSON")
    if args.every:
        entries = series(args.dir / "laghos-like.pvd")
        steps = [step for _, step, _ in entries]
        want = steps_written(sol["step"], args.every)
        if steps != want:
            sys.exit(f".pvd lists steps {steps}, expected {want}")
        rho0 = vtk_to_numpy(read(args.dir / entries[0][0]).GetCellData().GetArray("density"))
        if np.max(np.abs(rho0 - 1.0)) > 1e-12:
            sys.exit(f"step 0 density deviates from 1 by {np.max(np.abs(rho0 - 1.0))}")
        if abs(entries[-1][2] - sol["t"]) > 1e-14:
            sys.exit("the last entry's time is not the run's final time")
        print(f"laghos-like.pvd: steps {steps}, step 0 density 1")


main()
