"""copa-compare on synthetic result sets with planted changes."""
import os
import unittest

import synthetic
from tooltest import ToolTest


class CompareTest(ToolTest):
    def compare(self, candidate_docs, *extra, baseline_docs=None, **set_options):
        base = synthetic.write_set(self.path("base"), baseline_docs or synthetic.standard_set())
        cand = synthetic.write_set(self.path("cand"), candidate_docs, **set_options)
        code, out = self.tool("copa-compare", base, cand, "--out", self.path("report"), *extra)
        md_path = self.path("report", "compare.md")
        md = ""
        if os.path.exists(md_path):
            with open(md_path) as f:
                md = f.read()
        return code, out, md

    @staticmethod
    def verdict(md, case, kernel_name):
        for line in md.splitlines():
            cells = [c.strip() for c in line.strip("|").split("|")]
            if len(cells) > 2 and cells[0] == case and cells[1] == kernel_name:
                return cells[-1]
        return None

    def test_planted_slowdown_is_slower(self):
        code, out, md = self.compare(synthetic.standard_set(slowdown=1.20))
        self.assertEqual(code, 1, out)
        self.assertEqual(self.verdict(md, "mom-efie small openmp default", "lu"), "SLOWER")
        self.assertEqual(self.verdict(md, "mom-efie small openmp default", "fill"), "SAME")
        self.assertIn("1 SLOWER", out)

    def test_one_percent_change_is_same(self):
        code, out, md = self.compare(synthetic.standard_set(slowdown=1.01))
        self.assertEqual(code, 0, out)
        self.assertEqual(self.verdict(md, "mom-efie small openmp default", "lu"), "SAME")
        self.assertIn("0 SLOWER", out)

    def test_speedup_is_faster_and_passes(self):
        code, out, md = self.compare(synthetic.standard_set(slowdown=0.7))
        self.assertEqual(code, 0, out)
        self.assertEqual(self.verdict(md, "mom-efie small openmp default", "lu"), "FASTER")

    def test_noise_raises_threshold(self):
        # Documents without repetition samples (the median rule): 10% slower but repetitions spread
        # with a 5% relative MAD: threshold 15%, so SAME.
        noisy = synthetic.without_samples(synthetic.standard_set(noise=0.05))
        slower = synthetic.without_samples(synthetic.standard_set(slowdown=1.10, noise=0.05))
        code, out, md = self.compare(slower, baseline_docs=noisy)
        self.assertEqual(code, 0, out)
        self.assertEqual(self.verdict(md, "mom-efie small openmp default", "lu"), "SAME")
        self.assertIn("median rule", md)
        # A smaller MAD factor makes the same change a regression.
        code, out, md = self.compare(slower, "--mad-factor", "1", baseline_docs=noisy)
        self.assertEqual(code, 1, out)
        self.assertEqual(self.verdict(md, "mom-efie small openmp default", "lu"), "SLOWER")

    def test_samples_use_the_u_test(self):
        # Ten samples a side, 0.2% noise: a 3% slowdown is significant (p < 0.01) but below the 5%
        # threshold (SAME); with --threshold 0.01 it is SLOWER, and the report names the test.
        base = synthetic.standard_set(noise=0.002, repetitions=10)
        cand = synthetic.standard_set(slowdown=1.03, noise=0.002, repetitions=10)
        code, out, md = self.compare(cand, baseline_docs=base)
        self.assertEqual(code, 0, out)
        self.assertEqual(self.verdict(md, "mom-efie small openmp default", "lu"), "SAME")
        code, out, md = self.compare(cand, "--threshold", "0.01", baseline_docs=base)
        self.assertEqual(code, 1, out)
        self.assertEqual(self.verdict(md, "mom-efie small openmp default", "lu"), "SLOWER")
        self.assertIn("U test p=", md)
        self.assertIn("Mann-Whitney U test", md)
        # The median rule would call the 10%-slower, 5%-noise case of test_noise_raises_threshold
        # SLOWER with --mad-factor 1; the U test on its five samples a side does not (p = 0.15).
        code, out, md = self.compare(synthetic.standard_set(slowdown=1.10, noise=0.05), "--mad-factor", "1",
                                     baseline_docs=synthetic.standard_set(noise=0.05))
        self.assertEqual(code, 0, out)
        self.assertEqual(self.verdict(md, "mom-efie small openmp default", "lu"), "SAME")

    def test_false_alarm_rate_of_the_u_test(self):
        # 400 comparisons of two sets of 8 samples drawn from one log-normal distribution, no minimum
        # effect: the U test at alpha = 0.01 flags about 1% of them (binomial: 4 expected, P(> 12) < 1e-3).
        import random
        from copasuite.compare import KernelDelta
        from copasuite.resultset import Kernel

        rng = random.Random(19)

        def kernel():
            samples = [1e-3 * rng.lognormvariate(0, 0.1) for _ in range(8)]
            return Kernel(synthetic.kernel_from_samples("k", samples), "x.json", 0)

        alarms = sum(KernelDelta("k", kernel(), kernel(), 0.0, 3.0, 0.01).verdict != "SAME" for _ in range(400))
        self.assertLessEqual(alarms, 12)
        # Four samples a side are too few for the test: the median rule judges them.
        few = [Kernel(synthetic.kernel_from_samples("k", [1e-3, 1.1e-3, 0.9e-3, 1e-3]), "x.json", 0) for _ in "ab"]
        self.assertEqual(KernelDelta("k", few[0], few[1], 0.05, 3.0, 0.01).method, "median rule")

    def test_threshold_option(self):
        code, out, md = self.compare(synthetic.standard_set(slowdown=1.20), "--threshold", "0.25")
        self.assertEqual(code, 0, out)
        self.assertEqual(self.verdict(md, "mom-efie small openmp default", "lu"), "SAME")

    def test_failed_verification_is_flagged(self):
        code, out, md = self.compare(synthetic.standard_set(fail_verification=True))
        self.assertEqual(code, 1, out)
        self.assertIn("VERIFICATION FAILED in the candidate: mps-density small openmp", out)
        self.assertIn("FAILED (was passing)", md)
        with open(self.path("report", "compare.html")) as f:
            html = f.read()
        self.assertIn('class="slower">FAILED (was passing)', html)

    def test_fom_change_and_metadata_difference(self):
        code, out, md = self.compare(synthetic.standard_set(fom_factor=1.5), git_sha="def456")
        self.assertEqual(code, 0, out)
        self.assertIn("+50.0%", md)
        self.assertIn("| git.sha | abc123 | def456 |", md)

    def test_malformed_json_is_a_clear_error(self):
        docs = synthetic.standard_set()
        synthetic.write_set(self.path("base"), docs)
        cand = synthetic.write_set(self.path("cand"), docs)
        with open(os.path.join(cand, "mom-efie.small.cuda.json"), "w") as f:
            f.write('{"schema": "copa-result/1", "app": "mom-efie", "kernels": [')
        code, out = self.tool("copa-compare", self.path("base"), cand, "--out", self.path("report"))
        self.assertEqual(code, 2, out)
        self.assertIn("mom-efie.small.cuda.json: not valid JSON", out)

    def test_missing_key_is_a_clear_error(self):
        docs = synthetic.standard_set()
        del docs["mom-efie.small.serial"]["kernels"][0]["time_s"]["median"]
        code, out, _ = self.compare(docs)
        self.assertEqual(code, 2, out)
        self.assertIn("mom-efie.small.serial.json: missing key 'median' in kernels[0].time_s", out)

    def test_missing_directory_is_a_clear_error(self):
        base = synthetic.write_set(self.path("base"), synthetic.standard_set())
        code, out = self.tool("copa-compare", base, self.path("nowhere"))
        self.assertEqual(code, 2, out)
        self.assertIn("nowhere: no such result directory", out)

    def test_missing_result_file_named_in_run_json_is_an_error(self):
        cand = synthetic.write_set(self.path("cand"), synthetic.standard_set())
        os.remove(os.path.join(cand, "mps-density.small.serial.json"))
        base = synthetic.write_set(self.path("base"), synthetic.standard_set())
        code, out = self.tool("copa-compare", base, cand, "--out", self.path("report"))
        self.assertEqual(code, 2, out)
        self.assertIn("mps-density.small.serial.json: no such file", out)

    def test_parent_directory_stands_for_its_newest_run(self):
        synthetic.write_set(self.path("base", "20250101-000000"), synthetic.standard_set(slowdown=5.0))
        synthetic.write_set(self.path("base", "20250102-000000"), synthetic.standard_set())
        cand = synthetic.write_set(self.path("cand"), synthetic.standard_set())
        code, out = self.tool("copa-compare", self.path("base"), cand, "--out", self.path("report"))
        self.assertEqual(code, 0, out)
        self.assertIn("20250102-000000", out)

    def test_not_verified_is_neither_pass_nor_fail(self):
        docs = synthetic.standard_set()
        synthetic.not_verified(docs["mps-density.small.openmp"], "no reference for RK4 runs")
        code, out, md = self.compare(docs)
        self.assertEqual(code, 0, out)  # not a failure...
        self.assertNotIn("VERIFICATION FAILED", out)
        self.assertIn("NOT VERIFIED in the candidate (neither pass nor fail): mps-density small openmp", out)
        self.assertIn("NOT VERIFIED: no reference for RK4 runs", md)
        self.assertIn("NOT VERIFIED (was passing)", md)  # ...nor a pass: the lost check is named
        self.assertIn("1 candidate runs NOT VERIFIED", md)
        # The same case NOT VERIFIED on both sides compares its kernels as usual.
        code, out, md = self.compare(docs, baseline_docs=docs)
        self.assertEqual(code, 0, out)
        self.assertEqual(self.verdict(md, "mps-density small openmp default", "density"), "SAME")

    def test_verification_passed_must_be_boolean_or_null_with_a_reason(self):
        for passed, extra, message in (("yes", {}, "'passed' in verification must be true, false or null"),
                                       (None, {}, "'verification' has 'passed': null (NOT VERIFIED) but no string 'reason'")):
            docs = synthetic.standard_set()
            docs["mom-efie.small.serial"]["verification"] = dict({"passed": passed}, **extra)
            code, out, _ = self.compare(docs)
            self.assertEqual(code, 2, out)
            self.assertIn("mom-efie.small.serial.json: " + message, out)

    def test_unwritable_output_is_refused_before_reading_the_sets(self):
        blocker = self.path("a-file")
        with open(blocker, "w") as f:
            f.write("not a directory\n")
        # The sets do not even exist: the output is checked first, and nothing is written.
        for args in (["--out", os.path.join(blocker, "report")], ["--out", blocker],
                     ["--markdown", os.path.join(blocker, "x.md")], ["--html", self.path()]):
            code, out = self.tool("copa-compare", self.path("no-base"), self.path("no-cand"), *args)
            self.assertEqual(code, 2, f"{args}: {out}")
            self.assertIn(args[0], out)
            self.assertNotIn("no such result directory", out)


if __name__ == "__main__":
    unittest.main()
