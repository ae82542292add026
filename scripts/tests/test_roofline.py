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

    def test_labels_do_not_overlap_and_stay_beside_their_points(self):
        # Twelve points in a tight cluster (the case where fixed offsets put labels on the wrong
        # points) and two roof labels: no two label boxes overlap, no label covers another point, and
        # every label is within its candidate rings of its own point.
        from copasuite import labels
        points = [(300 + 6 * (i % 4), 200 + 5 * (i // 4)) for i in range(12)]
        texts = [f"kernel_{i}" for i in range(12)]
        roof_boxes = [labels.text_box(700, 400, "FP64 1.5 TFLOP/s", 9.7, "right", "top"),
                      labels.text_box(700, 403, "FP32 3 TFLOP/s", 9.7, "right", "bottom")]
        self.assertEqual(labels.overlap(*roof_boxes), 0)  # FP64 under its roof, FP32 over its own
        placed = labels.place(points, texts, 9.7, roof_boxes)
        boxes = [labels.text_box(x, y, t, 9.7, ha, va) for (x, y, ha, va, _), t in zip(placed, texts)]
        for i, a in enumerate(boxes):
            for b in boxes[i + 1:] + roof_boxes:
                self.assertEqual(labels.overlap(a, b), 0, (a, b))
            for j, (px, py) in enumerate(points):
                if j != i:
                    r = labels.POINT_RADIUS
                    self.assertEqual(labels.overlap(a, (px - r, py - r, px + r, py + r)), 0, (i, j))
            x, y = placed[i][:2]
            self.assertLessEqual(((x - points[i][0]) ** 2 + (y - points[i][1]) ** 2) ** 0.5, 50.001)
        # Labels that moved off the first ring carry a leader line to their point.
        self.assertTrue(any(leader for *_, leader in placed))

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
