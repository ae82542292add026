"""copa-compare machine against machine: a synthetic H200 set (cuda + openmp) against a synthetic
2-core CPU set (serial + openmp), with known FOMs, so the suite score is known."""
import math
import os
import unittest

import synthetic
from tooltest import ToolTest


def gpu_set():
    """H200: mom-efie cuda at 100 GFOM, mps-density cuda at 50 GFOM, and a faster mps-density variant
    whose verification FAILED (never the representative of its case)."""
    docs = {}
    for app, fom in (("mom-efie", 1e11), ("mps-density", 5e10)):
        ks = [synthetic.kernel("fill" if app == "mom-efie" else "density", 1e-5, 4e9, 1e8)]
        ks[0]["frac_roofline"] = 0.62
        docs[f"{app}.small.cuda"] = synthetic.result(app, "cuda", ks, fom=fom, gpu={"name": "NVIDIA H200"})
        docs[f"{app}.small.openmp"] = synthetic.result(app, "openmp", [synthetic.kernel("other", 1e-3, 1e6, 1e6)],
                                                       fom=fom / 100)
    bad = synthetic.result("mps-density", "cuda", [synthetic.kernel("density", 1e-7, 4e9, 1e8)], passed=False,
                           fom=1e13, variant="broken")
    docs["mps-density.small.cuda-broken"] = bad
    return docs


def cpu_set():
    """2-core CPU: the standard set (serial FOM 1e9, openmp 4e9 for both apps)."""
    docs = synthetic.standard_set()
    for key in ("mom-efie.small.openmp", "mps-density.small.openmp"):
        docs[key]["kernels"][0]["frac_roofline"] = 0.17
    return docs


class CompareMachinesTest(ToolTest):
    def run_compare(self, base_docs, cand_docs, *extra, base_name="cpu-2core", cand_name="h200"):
        self.calls = getattr(self, "calls", 0) + 1  # fresh directories for every comparison of a test
        base = synthetic.write_set(self.path(f"a{self.calls}"), base_docs, machine_name=base_name)
        cand = synthetic.write_set(self.path(f"b{self.calls}"), cand_docs, machine_name=cand_name)
        code, out = self.tool("copa-compare", base, cand, "--out", self.path("report"), *extra)
        md = ""
        if os.path.exists(self.path("report", "compare.md")):
            with open(self.path("report", "compare.md")) as f:
                md = f.read()
        return code, out, md

    def test_suite_score_is_the_geometric_mean_of_best_fom_ratios(self):
        code, out, md = self.run_compare(cpu_set(), gpu_set())
        self.assertEqual(code, 0, out)
        # Best FOM per case: CPU openmp 4e9 on both apps; H200 cuda 1e11 and 5e10 (not the failed 1e13).
        score = math.sqrt((1e11 / 4e9) * (5e10 / 4e9))
        first = out.splitlines()[0]
        self.assertTrue(first.startswith("cpu-2core vs h200: suite score"), first)
        self.assertIn(f"suite score {score:.3g}", first)
        self.assertNotIn("REGRESSION", out + md)
        self.assertIn("2 cases compared", out)
        self.assertIn("25.00x", md)   # mom-efie 1e11 / 4e9
        self.assertIn("12.50x", md)   # mps-density 5e10 / 4e9
        self.assertIn("cuda/default (of 3)", md)  # mps-density: best of cuda, cuda broken, openmp
        self.assertNotIn("1e+13", md)
        self.assertIn(f"**cpu-2core vs h200: suite score {score:.3g}", md)

    def test_kernels_side_by_side_against_their_own_roofline(self):
        code, out, md = self.run_compare(cpu_set(), gpu_set())
        self.assertEqual(code, 0, out)
        rows = [line for line in md.splitlines() if line.startswith("| mom-efie | small | fill |")]
        self.assertEqual(len(rows), 1, md)
        cells = [c.strip() for c in rows[0].strip("|").split("|")]
        self.assertEqual(cells[4], "17.0%")   # A: the CPU's openmp kernel against the CPU's roofline
        self.assertEqual(cells[6], "62.0%")   # B: the H200's cuda kernel against the H200's roofline
        with open(self.path("report", "compare.html")) as f:
            self.assertIn("suite score", f.read())

    def test_nothing_matched_exits_2(self):
        gpu = {k.replace(".small.", ".large."): v for k, v in gpu_set().items()}
        for d in gpu.values():
            d["run"]["problem"]["size"] = "large"
        code, out, md = self.run_compare(cpu_set(), gpu)
        self.assertEqual(code, 2, out)
        self.assertIn("nothing was compared", out)
        self.assertIn("only on B: mom-efie large", out)

    def test_different_problem_does_not_match(self):
        gpu = gpu_set()
        gpu["mom-efie.small.cuda"]["run"]["problem"]["ka"] = 4.0
        gpu["mom-efie.small.openmp"]["run"]["problem"]["ka"] = 4.0
        code, out, md = self.run_compare(cpu_set(), gpu)
        self.assertEqual(code, 0, out)
        self.assertIn("1 cases compared", out)
        self.assertIn(f"suite score {5e10 / 4e9:.3g}", out.splitlines()[0])

    def test_laghos_cuda_case_matches_the_cpu_baseline(self):
        # As the apps write them: laghos-like's memory estimate differs by backend (device bytes on
        # cuda), so do the float outcomes of ramses-oct; the problem as chosen is the same.
        def laghos(backend, fom, device_bytes, host_bytes):
            doc = synthetic.result("laghos-like", backend, [synthetic.kernel("CG (H1) iteration", 1e-4, 1e8, 1e8)],
                                   fom=fom, variant="block-xy-atomic" if backend == "cuda" else "element-parallel")
            doc["run"]["problem"].update({"dim": 3, "order_k": 2, "zones": 512.0, "h1_dofs": 14739.0,
                                          "l2_dofs": 4096.0, "quadrature_points_per_zone": 64,
                                          "memory_estimate": {"device_bytes": device_bytes,
                                                              "host_bytes": host_bytes}})
            return doc
        cpu = {"laghos-like.small.openmp": laghos("openmp", 6.0, 0.0, 8584816.0),
               "laghos-like.small.serial": laghos("serial", 3.0, 0.0, 8178088.0)}
        gpu = {"laghos-like.small.cuda": laghos("cuda", 120.0, 8062371.0, 3425619.0),
               "laghos-like.small.openmp": laghos("openmp", 24.0, 0.0, 8584816.0)}
        code, out, md = self.run_compare(cpu, gpu)
        self.assertEqual(code, 0, out)
        self.assertIn("1 cases compared", out)
        self.assertIn("suite score 20 ", out.splitlines()[0])  # cuda 120 against the CPU's best, openmp 6
        row = [line for line in md.splitlines() if line.startswith("| laghos-like | small |")][0]
        self.assertIn("openmp/element-parallel (of 2)", row)
        self.assertIn("cuda/block-xy-atomic (of 2)", row)
        self.assertNotIn("Only on", md)
        # A different mesh is another problem, whatever its estimate.
        gpu["laghos-like.small.cuda"]["run"]["problem"]["zones"] = 4096.0
        gpu["laghos-like.small.openmp"]["run"]["problem"]["zones"] = 4096.0
        code, out, _ = self.run_compare(cpu, gpu)
        self.assertEqual(code, 2, out)

    def test_energy_score_beside_the_suite_score(self):
        cpu, gpu = cpu_set(), gpu_set()
        code, out, md = self.run_compare(cpu, gpu)
        self.assertEqual(code, 0, out)
        self.assertIn("energy score null", out.splitlines()[1])  # documents without energy
        for docs, per_joule in ((cpu, 1e7), (gpu, 1e9)):
            for d in docs.values():
                d["fom"].update({"per_joule": per_joule, "per_joule_unit": "items/J"})
        gpu["mom-efie.small.cuda"]["fom"]["per_joule"] = 4e9
        gpu["mom-efie.small.cuda"]["clocks"] = {"throttled": True}
        code, out, md = self.run_compare(cpu, gpu)
        self.assertEqual(code, 0, out)
        self.assertIn(f"energy score {math.sqrt(400 * 100):.3g} ", out.splitlines()[1])
        self.assertIn("cuda/default (of 2) THROTTLED", md)  # the mom-efie case's best H200 run
        self.assertIn("4e+09 items/J", md)

    def test_auto_mode_and_forced_modes(self):
        # Same machine name but no backend in common: machines mode too.
        gpu = {k: v for k, v in gpu_set().items() if k.endswith(".cuda")}
        code, out, _ = self.run_compare(cpu_set(), gpu, base_name="box", cand_name="box")
        self.assertEqual(code, 0, out)
        self.assertIn("suite score", out.splitlines()[0])
        # Forced regression mode on those sets compares nothing: exit 2, never "no regression" with 0.
        code, out, _ = self.run_compare(cpu_set(), gpu, "--mode", "regression", base_name="box", cand_name="box")
        self.assertEqual(code, 2, out)
        self.assertIn("0 cases compared", out)
        self.assertIn("nothing was compared", out)
        # --machines on one machine's two runs compares them case by case.
        code, out, _ = self.run_compare(cpu_set(), cpu_set(), "--machines", base_name="box", cand_name="box")
        self.assertEqual(code, 0, out)
        self.assertIn("box (A) vs box (B): suite score 1 ", out.splitlines()[0])


if __name__ == "__main__":
    unittest.main()
