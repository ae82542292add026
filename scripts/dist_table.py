"""What the scaling tables of the apps' bench/dist.sh share: a run's JSON, and the wall time and
the reason for a skip that its log holds (scripts/dist-bench.sh ends every log with
"copa-dist: wall_s=W rc=R"). The scripts put this folder on PYTHONPATH."""
import json
import os
import re


class RunDir:
    def __init__(self, out):
        self.out = out

    def load(self, name):
        """The run's copa-result JSON, or None where the run wrote none (skipped, refused, failed)."""
        path = os.path.join(self.out, name + ".json")
        return json.load(open(path)) if os.path.exists(path) else None

    def log_info(self, name):
        """(wall seconds as written, or "", and the first line saying why a run did not finish)."""
        path = os.path.join(self.out, name + ".log")
        lines = open(path, errors="replace").read().splitlines() if os.path.exists(path) else []
        wall = next((m.group(1) for l in lines for m in [re.search(r"copa-dist: wall_s=([0-9.]+)", l)] if m), "")
        why = next((l.strip() for l in lines if re.search(r"skipped|error|refused|budget", l, re.I)),
                   lines[-1] if lines else "not run")
        return wall, why

    def commbench(self):
        """copa-commbench's JSON of the same campaign (gpu-check-dist writes it beside the apps'
        folders: OUT/commbench.json for OUT/<app>), or None."""
        path = os.path.join(self.out, os.pardir, "commbench.json")
        return json.load(open(path)) if os.path.exists(path) else None


def halo_link(doc, transport, commbench):
    """(halo GB/s per direction, copa-commbench's GB/s for that transport at the nearest message
    size, their ratio) of a run's halo rows, as copa-run's scaling tables give them; None where not
    measured."""
    from types import SimpleNamespace
    from copasuite.resultset import Kernel
    from copasuite.scaling import halo_rate, link_rate
    kernels = [Kernel(k, "", i) for i, k in enumerate(doc.get("kernels", []))]
    rate, message = halo_rate(SimpleNamespace(kernels=kernels))
    link = link_rate(commbench, transport, message)
    return rate, link, rate / link if rate and link else None
