"""JSON Schemas (schemas/): every committed result validates, the documents the suite tools and the
synthetic sets write validate, and a broken document is refused with the path of what is wrong."""
import json
import os
import unittest

import synthetic
from tooltest import ToolTest

REPO = os.path.dirname(synthetic.SCRIPTS)


class SchemaTest(ToolTest):
    def test_every_committed_result_is_valid(self):
        code, out = self.tool("copa-validate", os.path.join(REPO, "results"))
        self.assertEqual(code, 0, out)
        valid, total = map(int, out.splitlines()[-1].split(": ")[1].split(" documents")[0].split(" of "))
        self.assertEqual(valid, total, out)
        self.assertGreater(total, 200, out)  # results/ holds about 245 documents

    def test_no_committed_kernel_row_above_its_roofline(self):
        # A fraction above 1 means a ceiling, a count or the region's time is wrong; corrected
        # documents say how in the row's count_note.
        above = []
        for root, _, files in os.walk(os.path.join(REPO, "results")):
            for name in files:
                if not name.endswith(".json"):
                    continue
                with open(os.path.join(root, name)) as f:
                    try:
                        doc = json.load(f)
                    except ValueError:
                        continue
                if not isinstance(doc, dict) or doc.get("schema") != "copa-result/1":
                    continue
                for k in doc.get("kernels", []):
                    frac = k.get("frac_roofline")
                    if isinstance(frac, (int, float)) and frac > 1:
                        above.append(f"{os.path.relpath(os.path.join(root, name), REPO)}: {k['name']} {100 * frac:.1f}%")
        self.assertEqual(above, [])

    def test_documents_the_tools_write_are_valid(self):
        build = synthetic.fake_build(self.path("build"), ["mom-efie", "mps-density"])
        code, out = self.tool("copa-run", "--build", build, "--out", self.path("run"), "--no-charts")
        self.assertEqual(code, 0, out)
        synthetic.write_set(self.path("set"), synthetic.standard_set())
        not_verified = synthetic.not_verified(synthetic.standard_set()["mom-efie.small.serial"])
        with open(self.path("set", "not-verified.json"), "w") as f:
            json.dump(not_verified, f)
        code, out = self.tool("copa-validate", "--strict", self.path("run"), self.path("set"))
        self.assertEqual(code, 0, out)
        self.assertIn("0 invalid", out)

    def test_a_broken_document_is_named(self):
        doc = synthetic.standard_set()["mom-efie.small.serial"]
        del doc["kernels"][0]["time_s"]
        doc["kernels"][1]["precision"] = "fp128"
        doc["verification"] = {"passed": None}  # NOT VERIFIED needs its reason
        path = self.path("bad.json")
        with open(path, "w") as f:
            json.dump(doc, f)
        code, out = self.tool("copa-validate", path)
        self.assertEqual(code, 1, out)
        self.assertIn("INVALID " + path, out)
        self.assertIn("kernels/0: 'time_s' is a required property", out)
        self.assertIn("kernels/1/precision: 'fp128' is not one of", out)
        self.assertIn("verification:", out)
        with open(self.path("unknown.json"), "w") as f:
            json.dump({"schema": "copa-nothing/9"}, f)
        code, out = self.tool("copa-validate", self.path("unknown.json"))
        self.assertEqual(code, 2, out)
        self.assertIn("schema 'copa-nothing/9'", out)
        with open(self.path("torn.json"), "w") as f:
            f.write('{"schema": ')
        code, out = self.tool("copa-validate", self.path("torn.json"))
        self.assertEqual(code, 2, out)
        self.assertIn("torn.json: not valid JSON", out)


    def test_non_finite_numbers_and_malformed_json_are_bad_input(self):
        doc = synthetic.standard_set()["mom-efie.small.serial"]
        doc["fom"]["value"] = float("nan")
        cases = {"nan.json": json.dumps(doc),                      # Python writes NaN; JSON has no NaN
                 "inf.json": json.dumps(doc).replace("NaN", "Infinity"),
                 "deep.json": "[" * 100000 + "]" * 100000,
                 "cut.json": json.dumps(doc)[:200]}
        for name, text in cases.items():
            with open(self.path(name), "w") as f:
                f.write(text)
            code, out = self.tool("copa-validate", self.path(name))
            self.assertEqual(code, 2, name + ": " + out)
            self.assertIn(name + ": not valid JSON", out)
            self.assertNotIn("Traceback", out)
        # copa-compare refuses a candidate with a NaN FOM instead of reporting "+nan%".
        synthetic.write_set(self.path("base"), synthetic.standard_set())
        cand = synthetic.standard_set()
        synthetic.write_set(self.path("cand"), cand)
        target = next(n for n in os.listdir(self.path("cand")) if n.endswith(".json") and n != "run.json")
        with open(self.path("cand", target)) as f:
            d = json.load(f)
        d["fom"]["value"] = float("nan")
        with open(self.path("cand", target), "w") as f:
            json.dump(d, f)
        code, out = self.tool("copa-compare", self.path("base"), self.path("cand"), "--out", self.path("report"))
        self.assertEqual(code, 2, out)
        self.assertIn("not valid JSON", out)


if __name__ == "__main__":
    unittest.main()
