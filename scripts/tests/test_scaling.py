"""copa-run's scaling studies and copa-compare's efficiency check, with a fake MPI launcher and a stub
app whose time per step is planted (no MPI and no real app needed)."""
import json
import os
import unittest

import synthetic
from tooltest import ToolTest

# A launcher that takes -np N and runs the app once with COPA_FAKE_RANKS=N (as if N ranks ran).
FAKE_MPIEXEC = r'''#!/usr/bin/python3
import os, sys
args = sys.argv[1:]
n = args[args.index("-np") + 1]
del args[args.index("-np"):args.index("-np") + 2]
os.environ["COPA_FAKE_RANKS"] = n
os.execv(args[0], args)
'''

# A distributed app: one-rank step 1 ms of compute; on p ranks compute 1/p ms (strong) or 1 ms (weak,
# recognised by --nx), plus a planted communication overhead of 0.1 ms halo and 0.01 ms allreduce.
STUB_DIST_APP = r'''#!/usr/bin/python3
import json, os, sys
sys.path.insert(0, {synthetic_dir!r})
import synthetic
args = sys.argv[1:]
if "--list" in args:
    print("ramses-oct: variants (backends built: openmp)")
    print("  variant  backends  default  summary")
    print("  tiled    openmp    openmp   the stub's one loop")
    sys.exit(0)
opt = lambda name, default=None: args[args.index(name) + 1] if name in args else default
ranks = int(os.environ.get("COPA_FAKE_RANKS", "1")) if {distributed!r} else 1
weak = "--nx" in args
compute = 1e-3 if weak else 1e-3 / ranks
halo, allreduce = (1e-4, 1e-5) if ranks > 1 else (0.0, 0.0)
kernels = [synthetic.kernel("hydro_update", compute, 1e6, 1e6, noise=0),
           synthetic.kernel("step", compute + halo + allreduce, 1e6, 1e6, noise=0)]
if ranks > 1:
    kernels += [synthetic.kernel("halo_exchange", halo, 0, 4e6, noise=0),
                synthetic.kernel("allreduce_dt", allreduce, 0, 8, noise=0)]
    # As the apps write a halo row: bytes received (read) and sent (written), 4e6 each way.
    kernels[-2]["bytes_read"] = kernels[-2]["bytes_written"] = 4e6
    kernels[0]["time_mean_over_ranks"] = compute * 0.8
doc = synthetic.result("ramses-oct", opt("--backend"), kernels, size=opt("--size"))
doc["run"]["mpi_ranks"] = ranks
doc["run"]["transport"] = opt("--transport", "host")
doc["run"]["decomposition"] = {{"ranks": ranks, "local_work": [1000] * ranks}}
doc["run"]["command_line"] = " ".join(sys.argv)
json.dump(doc, open(opt("--json"), "w"))
'''


class ScalingTest(ToolTest):
    def study(self, *extra, distributed=True):
        build = self.path("build")
        synthetic._executable(os.path.join(build, "ramses-oct", "ramses-oct"),
                              STUB_DIST_APP.format(synthetic_dir=synthetic.HERE, distributed=distributed))
        launcher = self.path("fake-mpiexec")
        synthetic._executable(launcher, FAKE_MPIEXEC)
        out = self.path("out")
        code, text = self.tool("copa-run", "--build", build, "--out", out, "--no-probe", "--no-charts",
                               "--apps", "ramses-oct", "--mpiexec", launcher, *extra)
        doc = None
        if os.path.exists(os.path.join(out, "scaling.json")):
            with open(os.path.join(out, "scaling.json")) as f:
                doc = json.load(f)
        return code, text, out, doc

    @staticmethod
    def row(doc, transport, ranks):
        return next(r for r in doc["apps"][0]["rows"] if r["transport"] == transport and r["ranks"] == ranks)

    def test_strong_scaling_table(self):
        code, text, out, doc = self.study("--ranks", "2,4", "--transports", "host,ipc")
        self.assertEqual(code, 0, text)
        self.assertEqual(doc["study"], "strong")
        # T(1) = 1 ms; T(2) = 0.5 + 0.11 ms: E = 1 / (2 x 0.61) = 0.8197.
        r2 = self.row(doc, "ipc", 2)
        self.assertAlmostEqual(r2["efficiency"], 1e-3 / (2 * 0.61e-3), places=6)
        self.assertAlmostEqual(r2["comm_fraction"], 0.11e-3 / 0.61e-3, places=6)
        self.assertAlmostEqual(r2["imbalance"], 1 / 0.8, places=6)
        self.assertAlmostEqual(self.row(doc, "host", 1)["efficiency"], 1.0)
        with open(os.path.join(out, "ramses-oct.small.openmp.ipc.r4.json")) as f:
            self.assertIn("--transport ipc", json.load(f)["run"]["command_line"])
        self.assertTrue(os.path.exists(os.path.join(out, "scaling.txt")))
        self.assertIn("ramses-oct small", text)

    def test_efficiency_of_the_whole_step_beside_the_kernels(self):
        from copasuite.scaling import whole_step_seconds, efficiency
        # mps-density 100M strong, results/h200-x2/20261129: one GPU rebucket 7.73 + density 26.84 ms;
        # two GPUs rebucket 5.49 + density 13.66 + halo 1.03 ms (10 repetitions, no step row).
        def rows(*named):
            return [{"name": n, "calls": 10, "time_s": {"median": ms * 1e-3}} for n, ms in named]
        one = rows(("rebucket", 7.73), ("number-density", 26.84))
        two = rows(("rebucket", 5.49), ("number-density", 13.66), ("halo_exchange", 1.03))
        self.assertAlmostEqual(whole_step_seconds(one), 34.57e-3)
        step = efficiency("strong", 2, whole_step_seconds(one), whole_step_seconds(two))
        self.assertAlmostEqual(step, 34.57 / (2 * 20.18), places=6)  # 85.7%
        self.assertLess(step, 26.84 / (2 * 13.66))  # the density row alone: 98.2%
        # A step row stands for the whole step; set-up rows never count.
        with_step = rows(("hydro_update", 1.0), ("halo_exchange", 0.2), ("step", 1.3)) + \
            [{"name": "initial_grid", "calls": 1, "time_s": {"median": 5.0}}]
        self.assertAlmostEqual(whole_step_seconds(with_step), 1.3e-3)
        self.assertAlmostEqual(whole_step_seconds(with_step[:2] + with_step[3:]), 1.2e-3)
        self.assertAlmostEqual(efficiency("weak", 2, 1.0, 1.25), 0.8)

    def test_halo_rate_against_commbench(self):
        comm = self.path("comm.json")
        results = [{"transport": "host", "memory": "device", "pattern": "halo26", "bytes": b, "GBs_per_direction": g}
                   for b, g in ((1 << 20, 1.0), (4 << 20, 8.0), (16 << 20, 9.0))]
        with open(comm, "w") as f:
            json.dump({"schema": "copa-comm/1", "results": results}, f)
        code, text, out, doc = self.study("--ranks", "2", "--commbench", comm)
        self.assertEqual(code, 0, text)
        # The stub's halo moves 4e6 bytes each way in 0.1 ms = 40 GB/s per direction (not 80: the sent
        # and received bytes are the two directions); the nearest measured size is 4 MiB (8 GB/s).
        r2 = self.row(doc, "host", 2)
        self.assertAlmostEqual(r2["halo_GBs"], 40.0)
        self.assertAlmostEqual(r2["link_GBs"], 8.0)
        self.assertAlmostEqual(r2["frac_link"], 5.0)

    def test_link_rate_takes_the_nearest_size_of_either_pattern(self):
        from copasuite.scaling import link_rate
        # A quick commbench: the halo pattern up to 2 MiB per neighbour, the ping-pong up to 32 MiB.
        results = ([{"transport": "ipc", "memory": "device", "pattern": "halo26", "bytes": b, "GBs_per_direction": g}
                    for b, g in ((512 << 10, 100.0), (2 << 20, 148.0))] +
                   [{"transport": "ipc", "memory": "device", "pattern": "pingpong", "bytes": b, "GBs_per_direction": g}
                    for b, g in ((2 << 20, 64.0), (8 << 20, 124.0), (32 << 20, 179.0))])
        comm = {"schema": "copa-comm/1", "results": results}
        self.assertEqual(link_rate(comm, "ipc", 10.5e6), 124.0)  # 8 MiB is nearer 10.5 MB than 2 MiB or 32 MiB
        self.assertEqual(link_rate(comm, "ipc", 2 << 20), 148.0)  # equal sizes: the halo pattern
        self.assertIsNone(link_rate(comm, "nccl", 2 << 20))

    def test_weak_scaling_grows_the_problem(self):
        code, text, out, doc = self.study("--scaling", "weak", "--ranks", "2")
        self.assertEqual(code, 0, text)
        with open(os.path.join(out, "ramses-oct.small.openmp.host.r2.json")) as f:
            cmd = json.load(f)["run"]["command_line"]
        self.assertIn("--nx 64", cmd)
        # T(1) = 1 ms; T(2) = 1.11 ms: E = 0.9009.
        self.assertAlmostEqual(self.row(doc, "host", 2)["efficiency"], 1 / 1.11, places=6)

    def test_an_app_that_does_not_distribute_is_refused(self):
        code, text, out, doc = self.study("--ranks", "2", distributed=False)
        self.assertEqual(code, 2, text)
        self.assertIn("does not split its work over MPI ranks", text)

    def test_throughput_study_runs_every_size_on_one_rank(self):
        code, text, out, doc = self.study("--scaling", "throughput", "--size", "small,medium")
        self.assertEqual(code, 0, text)
        rows = doc["apps"][0]["rows"]
        self.assertEqual([r["size"] for r in rows], ["small", "medium"])
        self.assertEqual(rows[0]["work"], 1000)

    def test_bad_rank_list_exit_2(self):
        code, text, out, doc = self.study("--ranks", "two")
        self.assertEqual(code, 2, text)
        self.assertIn("--ranks", text)

    def test_compare_flags_an_efficiency_regression(self):
        code, text, base, doc = self.study("--ranks", "2")
        self.assertEqual(code, 0, text)
        cand = self.path("cand")
        os.makedirs(cand)
        doc["apps"][0]["rows"][1]["efficiency"] -= 0.10
        with open(os.path.join(cand, "scaling.json"), "w") as f:
            json.dump(doc, f)
        code, text = self.tool("copa-compare", base, cand, "--out", self.path("report"))
        self.assertEqual(code, 1, text)
        self.assertIn("EFFICIENCY REGRESSION: ramses-oct small host x2", text)
        code, text = self.tool("copa-compare", base, base, "--out", self.path("report"))
        self.assertEqual(code, 0, text)


if __name__ == "__main__":
    unittest.main()
