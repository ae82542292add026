"""Every test method of this folder is registered with ctest (CMakeLists.txt), so CI runs it."""
import os
import re
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))


class RegistrationTest(unittest.TestCase):
    def test_every_test_method_is_registered(self):
        with open(os.path.join(HERE, "CMakeLists.txt")) as f:
            registered = set(re.findall(r"(test_\w+\.\w+Test\.test_\w+)", f.read()))
        defined = set()
        for name in os.listdir(HERE):
            if name.startswith("test_") and name.endswith(".py"):
                with open(os.path.join(HERE, name)) as f:
                    text = f.read()
                cls = None
                for line in text.splitlines():
                    m = re.match(r"class (\w+Test)\(", line)
                    cls = m.group(1) if m else cls
                    m = re.match(r"    def (test_\w+)\(", line)
                    if m:
                        defined.add(f"{name[:-3]}.{cls}.{m.group(1)}")
        self.assertTrue(defined)
        self.assertEqual(sorted(defined - registered), [], "add these to scripts/tests/CMakeLists.txt")
        self.assertEqual(sorted(registered - defined), [], "registered but not defined")


if __name__ == "__main__":
    unittest.main()
