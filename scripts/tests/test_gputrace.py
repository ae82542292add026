"""scripts/gputrace-summary on a hand-made copa-gputrace timeline: busy time is the union of the
GPU activities of every stream, idle gaps are grouped by the activity before and after them, and
host waits are tallied by kind; bad input exits 2."""
import json

from tooltest import ToolTest

# Device 0, two streams. Busy: [1, 13) us (k_a, then its copy), [20, 30) (k_b with k_c inside it on
# stream 9), [31, 43) (k_a, copy), [50, 60) (k_b): 44 us of a 59 us span. Gaps: copy -> k_b twice
# (7 us each), k_b -> k_a once (1 us): k_c, which ends inside k_b, never closes a busy stretch.
TRACE = """kind,start_ns,end_ns,device,stream,what
kernel,1000,11000,0,7,"void k_a<2, 3>"
memcpy,11000,13000,0,7,"DtoH 4224 B"
sync,9000,13500,0,7,"stream_synchronize"
kernel,20000,30000,0,7,"k_b"
kernel,25000,26000,0,9,"k_c"
kernel,31000,41000,0,7,"void k_a<2, 3>"
memcpy,41000,43000,0,7,"DtoH 4224 B"
sync,38000,43500,0,7,"stream_synchronize"
kernel,50000,60000,0,7,"k_b"
"""


class GputraceTest(ToolTest):
    def write(self, text, name="trace.csv"):
        path = self.path(name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def test_busy_idle_and_gaps_by_neighbours(self):
        code, out = self.tool("gputrace-summary", self.write(TRACE), "--json", self.path("s.json"))
        self.assertEqual(code, 0, out)
        with open(self.path("s.json")) as f:
            d = json.load(f)[self.path("trace.csv")]
        dev = d["devices"]["0"]
        self.assertAlmostEqual(dev["span_ms"], 0.059)
        self.assertAlmostEqual(dev["busy_ms"], 0.044)
        self.assertAlmostEqual(dev["idle_ms"], 0.015)
        self.assertEqual(dev["gaps"], 3)
        gaps = {tuple(g["between"]): g for g in dev["gaps_by_neighbours"]}
        self.assertEqual(set(gaps), {("memcpy DtoH", "k_b"), ("k_b", "k_a<2, 3>")})
        self.assertEqual(gaps[("memcpy DtoH", "k_b")]["count"], 2)
        self.assertAlmostEqual(gaps[("memcpy DtoH", "k_b")]["median_us"], 7.0)
        self.assertAlmostEqual(gaps[("k_b", "k_a<2, 3>")]["total_ms"], 0.001)
        acts = {a["name"]: a for a in dev["activities"]}
        self.assertEqual(acts["k_a<2, 3>"]["count"], 2)
        self.assertAlmostEqual(acts["k_c"]["total_ms"], 0.001)
        self.assertEqual(d["host_waits"], [{"kind": "stream_synchronize", "count": 2, "total_ms": 0.01,
                                            "median_us": 5.0}])
        self.assertIn("idle 0.015 ms (25.4%) in 3 gaps", out)

    def test_skip_leaves_out_the_start(self):
        code, out = self.tool("gputrace-summary", self.write(TRACE), "--skip-ms", "0.029", "--json",
                              self.path("s.json"))
        self.assertEqual(code, 0, out)
        with open(self.path("s.json")) as f:
            dev = json.load(f)[self.path("trace.csv")]["devices"]["0"]
        self.assertAlmostEqual(dev["busy_ms"], 0.022)
        self.assertEqual(dev["gaps"], 1)

    def test_bad_input_exit_2(self):
        for args in ([self.path("missing.csv")], [self.write("a,b\n1,2\n", "columns.csv")],
                     [self.write(TRACE.replace("1000,11000", "x,11000"), "row.csv")],
                     [self.write(TRACE), "--top", "0"]):
            code, out = self.tool("gputrace-summary", *args)
            self.assertEqual(code, 2, f"{args}: {out}")
            self.assertIn("gputrace-summary: error:", out)
