"""copa-dashboard: one HTML page per result directory, from a copa-run of stub apps (summary, every
case and verdict, roofline charts), a scaling study and a comparison."""
import json
import os
import unittest

import synthetic
from tooltest import ToolTest


class DashboardTest(ToolTest):
    def test_copa_run_writes_a_page_naming_every_case(self):
        build = synthetic.fake_build(self.path("build"), ["mom-efie", "mps-density"], failing_backends=["openmp"])
        out = self.path("run")
        code, text = self.tool("copa-run", "--build", build, "--out", out)
        self.assertEqual(code, 1, text)  # the openmp runs failed verification
        self.assertIn("dashboard " + os.path.join(out, "index.html"), text)
        with open(os.path.join(out, "index.html")) as f:
            page = f.read()
        for app in ("mom-efie", "mps-density"):
            for backend in ("serial", "openmp"):
                self.assertRegex(page, f"<td>{app}</td><td>small</td><td>{backend}</td>")
        self.assertIn('<td class="PASSED">PASSED</td>', page)
        self.assertIn('<td class="FAILED">FAILED</td>', page)
        self.assertIn("4 runs: 2 FAILED, 2 PASSED", page)
        # The charts are referenced by relative path and exist.
        charts = [n for n in os.listdir(os.path.join(out, "roofline")) if n.endswith(".svg")]
        self.assertTrue(charts)
        for n in charts:
            self.assertIn(f'src="roofline/{n}"', page)

    def test_energy_view_and_rows_above_the_roofline(self):
        docs = synthetic.standard_set()
        gpu = docs["mom-efie.small.openmp"]
        gpu["fom"].update({"per_joule": 2.5e7, "per_joule_unit": "items/J"})
        gpu["energy"] = {"joules": 12.0, "seconds": 0.3, "mean_power_w": 40.0, "source": "nvml energy counter",
                         "reason": None}
        gpu["clocks"] = {"throttled": True, "reasons_seen": ["sw_power_cap"]}
        docs["mom-efie.small.serial"]["energy"] = {"joules": None, "seconds": 0.1, "mean_power_w": None,
                                                   "source": None, "reason": "/sys/class/powercap absent"}
        docs["mps-density.small.serial"]["kernels"][0]["frac_roofline"] = 1.4
        d = synthetic.write_set(self.path("set"), docs, machine_name="box")
        code, out = self.tool("copa-dashboard", d, "--no-charts")
        self.assertEqual(code, 0, out)
        with open(os.path.join(d, "index.html")) as f:
            page = f.read()
        self.assertIn("<h2>Energy</h2>", page)
        self.assertIn("<td>box</td><td>mom-efie</td><td>small</td><td>openmp/default</td><td>2.5e+07 items/J</td>"
                      "<td>12</td><td>40</td><td>nvml energy counter</td><td>THROTTLED</td>", page)
        self.assertIn("null: /sys/class/powercap absent", page)
        self.assertIn("ABOVE ROOFLINE", page)
        self.assertIn("<td>mps-density small serial default</td><td>density</td><td>140.0%</td>", page)

    def test_scaling_study_and_comparison(self):
        base = synthetic.write_set(self.path("base"), synthetic.standard_set())
        cand = synthetic.write_set(self.path("cand"), synthetic.standard_set(slowdown=1.2))
        code, out = self.tool("copa-compare", base, cand, "--out", cand)
        self.assertEqual(code, 1, out)
        code, out = self.tool("copa-dashboard", cand, "--no-charts")
        self.assertEqual(code, 0, out)
        with open(os.path.join(cand, "index.html")) as f:
            page = f.read()
        self.assertIn('<iframe src="compare.html">', page)
        self.assertIn("mom-efie small openmp default", page)  # the kernel table names every case
        study = self.path("study")
        os.makedirs(study)
        row = {"ranks": 2, "transport": "host", "time_per_step_s": 0.5, "compute_max_s": 0.4, "compute_mean_s": 0.3,
               "imbalance": 1.33, "halo_s": 0.05, "allreduce_s": 0.01, "comm_fraction": 0.12, "fom": 2e6,
               "fom_unit": "cells/s", "efficiency": 0.87, "halo_GBs": None, "link_GBs": None, "frac_link": None,
               "decomposition": None}
        with open(os.path.join(study, "scaling.json"), "w") as f:
            json.dump({"schema": "copa-scaling/1", "study": "strong", "backend": "cuda", "sizes": ["small"],
                       "ranks": [1, 2], "transports": ["host"], "skipped": [],
                       "apps": [{"app": "ramses-oct", "size": "small", "rows": [row]}]}, f)
        code, out = self.tool("copa-dashboard", study)
        self.assertEqual(code, 0, out)
        with open(os.path.join(study, "index.html")) as f:
            page = f.read()
        self.assertIn("strong scaling, backend cuda", page)
        self.assertIn("<td>ramses-oct small</td><td>host</td><td>2</td>", page)
        self.assertIn("<td>87.0</td>", page)  # the efficiency in percent
        code, out = self.tool("copa-dashboard", self.path("nowhere"))
        self.assertEqual(code, 2, out)
        self.assertIn("nowhere: no such result directory", out)


if __name__ == "__main__":
    unittest.main()
