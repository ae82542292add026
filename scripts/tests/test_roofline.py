"""copa-roofline renders its PNG and SVG charts from a synthetic result set."""
import os
import unittest

import synthetic
from tooltest import ToolTest


class RooflineTest(ToolTest):
    def test_renders_machine_backend_and_app_charts(self):
        docs = synthetic.standard_set()
        docs["mps-density.small.openmp"]["kernels"].append(synthetic.kernel("copy_in", 1e-4, 0, 8e6))
        results = synthetic.write_set(self.path("set"), docs)
        code, out = self.tool("copa-roofline", results, "--out", self.path("charts"))
        self.assertEqual(code, 0, out)
        expected = [f"roofline-testbox-{name}-small.{ext}"
                    for name in ("serial", "openmp", "mom-efie", "mps-density") for ext in ("png", "svg")]
        for name in expected:
            path = self.path("charts", name)
            self.assertTrue(os.path.exists(path), f"{name} missing; output:\n{out}")
            self.assertGreater(os.path.getsize(path), 10000, name)
        with open(self.path("charts", "roofline-testbox-openmp-small.png"), "rb") as f:
            self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")
        with open(self.path("charts", "roofline-testbox-openmp-small.svg")) as f:
            svg = f.read()
        # Labelled points, the roofs of the ceilings file, and the kernel that has no place on the chart.
        for text in ("density", "update", "FP64 1.5 TFLOP/s", "FP32 3 TFLOP/s", "triad 200 GB/s",
                     "mps-density:copy_in"):
            self.assertIn(text, svg)

    def test_default_output_is_inside_the_result_directory(self):
        results = synthetic.write_set(self.path("set"), synthetic.standard_set())
        code, out = self.tool("copa-roofline", results)
        self.assertEqual(code, 0, out)
        self.assertTrue(os.path.exists(os.path.join(results, "roofline", "roofline-testbox-openmp-small.svg")))

    def test_malformed_ceilings_is_a_clear_error(self):
        results = synthetic.write_set(self.path("set"), synthetic.standard_set())
        with open(os.path.join(results, "ceilings.json"), "w") as f:
            f.write('{"schema": "copa-ceilings/1", "backends": {"cuda": {}}}')
        code, out = self.tool("copa-roofline", results, "--out", self.path("charts"))
        self.assertEqual(code, 2, out)
        self.assertIn("ceilings.json: backends.cuda lacks a numeric triad_GBs", out)


if __name__ == "__main__":
    unittest.main()
