"""Reads mps-density's --vtk output back with VTK's own reader and checks it against the run's JSON.

usage: check_vtk.py DIR JSON density|simulation [EVERY]
The particle count must be the JSON's, and the FNV-1a checksum of the written values (the bits of n
in density mode; of x,y,z,u,v,w,p in simulation mode, original order) must equal the run's
checksum: the file holds exactly the state the run verified. With EVERY, the .pvd series must list
step 0, every EVERY-th step and the last step, each file readable with the same particle count.
"""
import json
import struct
import sys
from pathlib import Path

from vtk.util.numpy_support import vtk_to_numpy

from vtk_readback import read, series, steps_written


def fnv1a(arrays):
    h = 1469598103934665603
    for a in arrays:
        for byte in a.astype("<f8").tobytes():
            h = ((h ^ byte) * 1099511628211) & 0xFFFFFFFFFFFFFFFF
    return "%016x" % h


def main():
    out, result, mode = Path(sys.argv[1]), json.loads(Path(sys.argv[2]).read_text()), sys.argv[3]
    mps = result["mps"]
    data = read(out / "mps-density.vtp")
    n = data.GetNumberOfPoints()
    if n != mps["particles"] or data.GetNumberOfVerts() != n:
        sys.exit(f"{n} points, {data.GetNumberOfVerts()} vertices; the run had {mps['particles']} particles")
    pd = data.GetPointData()
    xyz = vtk_to_numpy(data.GetPoints().GetData())
    if mode == "density":
        fields = [vtk_to_numpy(pd.GetArray("number_density"))]
    else:
        uvw = vtk_to_numpy(pd.GetArray("velocity"))
        fields = [xyz[:, 0], xyz[:, 1], xyz[:, 2], uvw[:, 0], uvw[:, 1], uvw[:, 2], vtk_to_numpy(pd.GetArray("pressure"))]
    got = fnv1a(fields)
    if got != mps["checksum"]:
        sys.exit(f"checksum of the file's values {got} != the run's {mps['checksum']}")
    types = set(vtk_to_numpy(pd.GetArray("type")).astype(int).tolist())
    if not types <= {0, 1, 2}:
        sys.exit(f"particle types {types}")
    print(f"mps-density.vtp: {n} particles, checksum {got} as in the JSON")
    if len(sys.argv) > 4:
        every, steps = int(sys.argv[4]), mps["steps"]
        entries = series(out / "mps-density.pvd")
        want = steps_written(steps, every)
        got_steps = [step for _, step, _ in entries]
        if got_steps != want:
            sys.exit(f".pvd lists steps {got_steps}, expected {want}")
        for f, _, _ in entries:
            d = read(out / f)
            if d.GetNumberOfPoints() != n:
                sys.exit(f"{f}: {d.GetNumberOfPoints()} points")
        last = entries[-1][2]
        if abs(last - steps * mps["dt"]) > 1e-12 * max(1.0, last):
            sys.exit(f"last time {last} != steps * dt = {steps * mps['dt']}")
        print(f"mps-density.pvd: steps {got_steps}")


main()
