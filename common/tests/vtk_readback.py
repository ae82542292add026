"""What the apps' read-back checks of their --vtk output (<app>/tests/check_vtk.py, check_pvtu.py)
share: VTK's XML readers, the pieces a .pvtu names, the data sets a .pvd series lists and the steps
--vtk-every writes, and the command line of the .pvtu checks. run_vtk_test.cmake puts this folder on
the check scripts' PYTHONPATH.
"""
import argparse
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import vtk

READERS = {
    ".vti": vtk.vtkXMLImageDataReader,
    ".vtu": vtk.vtkXMLUnstructuredGridReader,
    ".pvtu": vtk.vtkXMLPUnstructuredGridReader,
    ".vtp": vtk.vtkXMLPolyDataReader,
}


def read(path):
    """The data set of a VTK XML file (reader chosen by the suffix); exits on a reader error."""
    r = READERS[path.suffix]()
    r.SetFileName(str(path))
    r.Update()
    if r.GetErrorCode() != 0:
        sys.exit(f"{path}: VTK reader error {r.GetErrorCode()}")
    return r.GetOutput()


def pvtu_pieces(pvtu, ranks):
    """The paths of the pieces a .pvtu names, which must be <stem>_p<r>.vtu for r = 0..ranks-1, each present."""
    sources = [p.get("Source") for p in ET.parse(pvtu).getroot().findall("./PUnstructuredGrid/Piece")]
    stem = pvtu.stem
    if sources != [f"{stem}_p{r}.vtu" for r in range(ranks)]:
        sys.exit(f"{pvtu} names pieces {sources}, expected {ranks} pieces {stem}_p<r>.vtu")
    for s in sources:
        if not (pvtu.parent / s).is_file():
            sys.exit(f"{pvtu}: piece {s} is missing")
    return [pvtu.parent / s for s in sources]


def series(pvd):
    """(file, step, time) of every data set a .pvd lists; the step is the number after the file name's last '_'."""
    entries = ET.parse(pvd).getroot().findall("./Collection/DataSet")
    return [(e.get("file"), int(e.get("file").split("_")[-1].split(".")[0]), float(e.get("timestep"))) for e in entries]


def steps_written(last, every):
    """The steps a run of `last` steps with --vtk-every `every` writes: 0, every multiple of `every`, and the last."""
    return sorted(set(range(0, last + 1, every)) | {last})


def pvtu_arguments():
    """The command line of the .pvtu checks: DIR JSON ONE_RANK_DIR --ranks R [--every N]."""
    ap = argparse.ArgumentParser()
    ap.add_argument("dir", type=Path)
    ap.add_argument("json", type=Path)
    ap.add_argument("one_rank_dir", type=Path)
    ap.add_argument("--ranks", type=int, required=True)
    ap.add_argument("--every", type=int, default=0)
    return ap.parse_args()
