"""Reads mom-efie's --vtk output back with VTK's own reader and checks it against the run's JSON.

usage: check_vtk.py DIR JSON
- the triangle and vertex counts of the mesh (triangles as in the JSON; a closed sphere has
  V = T / 2 + 2 vertices, Euler);
- J_abs = |(J_real, J_imag)| per triangle, and J is tangential: |J . n_T| <= 1e-12 max |J| (the
  RWG functions lie in their triangles' planes);
- the backscatter RCS computed from the written currents (one point per triangle, at its centroid,
  times its area) agrees with the run's monostatic sigma / (pi a^2) (7 points per triangle) within
  3%: the file holds the currents the run verified against Mie. Default incidence (k_hat = +z).
"""
import json
import sys
from pathlib import Path

import numpy as np
import vtk
from vtk.util.numpy_support import vtk_to_numpy

from vtk_readback import read


def main():
    out, result = Path(sys.argv[1]), json.loads(Path(sys.argv[2]).read_text())
    problem = result["run"]["problem"]
    g = read(out / "mom-efie.vtu")
    nt, nv = g.GetNumberOfCells(), g.GetNumberOfPoints()
    if nt != problem["triangles"] or nv != nt // 2 + 2:
        sys.exit(f"{nt} triangles, {nv} vertices; the run had {problem['triangles']} triangles")
    if set(vtk_to_numpy(g.GetCellTypesArray()).tolist()) != {vtk.VTK_TRIANGLE}:
        sys.exit("cells other than triangles")
    cd = g.GetCellData()
    J = vtk_to_numpy(cd.GetArray("J_real")) + 1j * vtk_to_numpy(cd.GetArray("J_imag"))
    mag = vtk_to_numpy(cd.GetArray("J_abs"))
    if not np.allclose(mag, np.sqrt(np.sum(np.abs(J) ** 2, axis=1)), rtol=1e-14, atol=0):
        sys.exit("J_abs is not |J|")
    pts = vtk_to_numpy(g.GetPoints().GetData())
    conn = vtk_to_numpy(g.GetCells().GetConnectivityArray()).reshape(-1, 3)
    a, b, c = pts[conn[:, 0]], pts[conn[:, 1]], pts[conn[:, 2]]
    normal = np.cross(b - a, c - a)
    area = 0.5 * np.linalg.norm(normal, axis=1)
    normal /= (2 * area)[:, None]
    tangential = np.max(np.abs(np.sum(J * normal, axis=1))) / mag.max()
    if tangential > 1e-12:
        sys.exit(f"J has a normal component: max |J.n| / max |J| = {tangential}")
    k, radius = problem["k"], problem["radius"]
    centroid = (a + b + c) / 3
    rh = np.array([0.0, 0.0, -1.0])  # backscatter of k_hat = +z
    Jt = np.sum((J * area[:, None]) * np.exp(1j * k * centroid @ rh)[:, None], axis=0)
    perp = Jt - rh * np.dot(rh, Jt)
    sigma = k**4 / (4 * np.pi) * np.sum(np.abs(perp) ** 2) / (np.pi * radius**2)
    run = result["mom"]["monostatic_sigma_over_pia2"]["efie"]
    if abs(sigma - run) > 0.03 * run:
        sys.exit(f"backscatter from the file {sigma} vs the run's {run}")
    print(f"mom-efie.vtu: {nt} triangles, max |J.n|/|J| {tangential:.2e}, backscatter {sigma:.4f} vs run {run:.4f}")


main()
