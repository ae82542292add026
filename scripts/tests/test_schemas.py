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


if __name__ == "__main__":
    unittest.main()
