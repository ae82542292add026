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
import xml.etree.ElementTree as ET
from pathlib import Path

import vtk
from vtk.util.numpy_support import vtk_to_numpy


def fnv1a(arrays):
    h = 1469598103934665603
    for a in arrays:
        for byte in a.astype("<f8").tobytes():
            h = ((h ^ byte) * 1099511628211) & 0xFFFFFFFFFFFFFFFF
    return "%016x" % h


def read(path):
    r = vtk.vtkXMLPolyDataReader()
    r.SetFileName(str(path))
    r.Update()
    if r.GetErrorCode() != 0:
        sys.exit(f"{path}: VTK reader error {r.GetErrorCode()}")
    return r.GetOutput()


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
        entries = ET.parse(out / "mps-density.pvd").getroot().findall("./Collection/DataSet")
        want = sorted(set(range(0, steps + 1, every)) | {steps})
        got_steps = [int(e.get("file").split("_")[-1].split(".")[0]) for e in entries]
        if got_steps != want:
            sys.exit(f".pvd lists steps {got_steps}, expected {want}")
        for e in entries:
            d = read(out / e.get("file"))
            if d.GetNumberOfPoints() != n:
                sys.exit(f"{e.get('file')}: {d.GetNumberOfPoints()} points")
        last = float(entries[-1].get("timestep"))
        if abs(last - steps * mps["dt"]) > 1e-12 * max(1.0, last):
            sys.exit(f"last time {last} != steps * dt = {steps * mps['dt']}")
        print(f"mps-density.pvd: steps {got_steps}")


main()
