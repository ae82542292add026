"""Reads laghos-like's --vtk output of a run over MPI ranks (a .pvtu naming one .vtu piece per
rank) back with VTK's vtkXMLPUnstructuredGridReader and compares it with a one-rank run's .vtu.

usage: check_pvtu.py DIR JSON ONE_RANK_DIR --ranks R [--every N]
- DIR/laghos-like.pvtu names R pieces laghos-like_p<r>.vtu, every one of them present;
- cells = global zones x k^dim sub-cells, and the "element" array (global element numbers)
  holds every zone 0..zones-1 exactly k^dim times: each element is written once, by its owner;
- points: every piece writes all the nodes of its elements, so shared nodes appear once per rank
  that holds them: at least the one-rank file's points, at most R times as many;
- the sub-cells' sizes (vtkCellSizeFilter) add up to the one-rank file's, and the mass
  (sum of density x size) and the internal energy (sum of density x e x size) agree with the
  one-rank file's to 1e-10 relative: the runs differ only in the order in which shared dofs are
  summed, given a tight CG tolerance (--cg-tol 1e-12 in the tests; the same bound as
  --compare-one-rank's |e|);
- element by element (matched by global number) the density agrees to 1e-10 relative;
- with --every: DIR/laghos-like.pvd lists a .pvtu for step 0, every N-th step and the last, each
  readable with all its pieces, and step 0's density is 1 to 1e-12 (Sedov's initial density).
"""
import json
import sys

import numpy as np
import vtk
from vtk.util.numpy_support import vtk_to_numpy

from vtk_readback import pvtu_arguments, pvtu_pieces, read, series, steps_written

REL = 1e-10


def sizes(g, dim):
    f = vtk.vtkCellSizeFilter()
    f.SetInputData(g)
    f.Update()
    return vtk_to_numpy(f.GetOutput().GetCellData().GetArray("Volume" if dim == 3 else "Area"))


def cell(g, name):
    return vtk_to_numpy(g.GetCellData().GetArray(name))


def per_element(g, dim):
    """Element number -> (density, mass, internal energy) summed over its sub-cells."""
    element = cell(g, "element").astype(int)
    size = sizes(g, dim)
    rho, e = cell(g, "density"), cell(g, "specific_internal_energy")
    return element, rho, rho * size, rho * e * size, size


def close(a, b, what):
    if abs(a - b) > REL * max(abs(a), abs(b)):
        sys.exit(f"{what}: {a!r} over the ranks, {b!r} on one rank (relative {abs(a - b) / abs(b):.3g} > {REL})")


def main():
    args = pvtu_arguments()
    result = json.loads(args.json.read_text())
    problem, sol = result["run"]["problem"], result["solution"]
    dim, k, zones = problem["dim"], problem["order_k"], int(problem["zones"])
    pvtu = args.dir / "laghos-like.pvtu"
    pvtu_pieces(pvtu, args.ranks)
    g = read(pvtu)
    one = read(args.one_rank_dir / "laghos-like.vtu")
    if g.GetNumberOfCells() != zones * k**dim or one.GetNumberOfCells() != g.GetNumberOfCells():
        sys.exit(f"{g.GetNumberOfCells()} cells over the ranks, {one.GetNumberOfCells()} on one rank; "
                 f"{zones} zones x {k}^{dim} expected")
    element, rho, mass, internal, size = per_element(g, dim)
    if not np.array_equal(np.bincount(element, minlength=zones), np.full(zones, k**dim)):
        sys.exit("the element numbers do not cover every zone exactly k^dim times")
    n, n1 = g.GetNumberOfPoints(), one.GetNumberOfPoints()
    if not n1 <= n <= args.ranks * n1:
        sys.exit(f"{n} points over the ranks, {n1} on one rank")
    e1, rho1, mass1, internal1, size1 = per_element(one, dim)
    close(size.sum(), size1.sum(), "sum of sub-cell sizes")
    close(mass.sum(), mass1.sum(), "mass (sum of density x size)")
    close(internal.sum(), internal1.sum(), "internal energy (sum of density x e x size)")
    # Every sub-cell of an element carries its element's density: compare one per element.
    by_element = np.empty(zones)
    by_element[element] = rho
    by_element1 = np.empty(zones)
    by_element1[e1] = rho1
    worst = np.max(np.abs(by_element - by_element1) / np.abs(by_element1))
    if worst > REL:
        sys.exit(f"element densities differ from the one-rank file's by {worst:.3g} relative (> {REL})")
    print(f"laghos-like.pvtu: {args.ranks} pieces, {g.GetNumberOfCells()} sub-cells of {zones} zones, "
          f"{n} points ({n1} on one rank), mass {mass.sum():.17g} vs {mass1.sum():.17g}, "
          f"internal energy {internal.sum():.17g} vs {internal1.sum():.17g}, densities within {worst:.3g}")
    if args.every:
        entries = series(args.dir / "laghos-like.pvd")
        files = [f for f, _, _ in entries]
        if not all(f.endswith(".pvtu") for f in files):
            sys.exit(f".pvd lists {files}, not .pvtu files")
        steps = [step for _, step, _ in entries]
        want = steps_written(sol["step"], args.every)
        if steps != want:
            sys.exit(f".pvd lists steps {steps}, expected {want}")
        for f in files:
            pvtu_pieces(args.dir / f, args.ranks)
            if read(args.dir / f).GetNumberOfCells() != zones * k**dim:
                sys.exit(f"{f}: not {zones} x {k}^{dim} cells")
        rho0 = cell(read(args.dir / files[0]), "density")
        if np.max(np.abs(rho0 - 1.0)) > 1e-12:
            sys.exit(f"step 0 density deviates from 1 by {np.max(np.abs(rho0 - 1.0))}")
        print(f"laghos-like.pvd: .pvtu at steps {steps}, each with {args.ranks} pieces, step 0 density 1")


main()
