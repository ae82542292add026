"""packaging/spack/copa/package.py imported against a minimal stub of Spack's package API (spack is
not installed here): the recipe must import, declare the variants cuda, hip, openmp, mpi and nccl,
the dependencies, the conflicts, and turn specs into the right CMake options."""
import importlib.util
import os
import sys
import types
import unittest

RECIPE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "spack", "copa", "package.py")


def make_stub():
    """A module standing for spack.package: the directives record their calls on the class."""
    api = types.ModuleType("spack.package")
    calls = []

    def directive(kind):
        def record(*args, **kwargs):
            calls.append((kind, args, kwargs))
        return record

    for kind in ("version", "variant", "depends_on", "conflicts", "license", "generator", "maintainers", "patch"):
        setattr(api, kind, directive(kind))

    class PackageBase:
        run_tests = False

        def __init__(self, spec):
            self.spec = spec

        def define(self, name, value):
            if isinstance(value, bool):
                value = "ON" if value else "OFF"
            return f"-D{name}={value}"

        def define_from_variant(self, name, variant):
            return self.define(name, bool(self.spec.variants[variant].value))

    class CMakePackage(PackageBase):
        pass

    class CudaPackage(PackageBase):
        pass

    api.CMakePackage, api.CudaPackage = CMakePackage, CudaPackage
    api.__all__ = [n for n in vars(api) if not n.startswith("_")]
    return api, calls


class Variant:
    def __init__(self, value):
        self.value = value


class Spec:
    """Enough of a concrete spec: variants and satisfies('+name' / '~name')."""

    def __init__(self, **variants):
        defaults = {"openmp": True, "mpi": False, "nccl": False, "hip": False, "cuda": False,
                    "cuda_arch": ("none",), "amdgpu_target": "gfx90a"}
        defaults.update(variants)
        self.variants = {k: Variant(v) for k, v in defaults.items()}

    def satisfies(self, constraint):
        name = constraint[1:]
        return bool(self.variants[name].value) == (constraint[0] == "+")


class SpackRecipeTest(unittest.TestCase):
    def setUp(self):
        self.api, self.calls = make_stub()
        spack = types.ModuleType("spack")
        spack.package = self.api
        self.saved = {k: sys.modules.get(k) for k in ("spack", "spack.package")}
        sys.modules["spack"], sys.modules["spack.package"] = spack, self.api
        spec = importlib.util.spec_from_file_location("copa_recipe", RECIPE)
        self.module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(self.module)

    def tearDown(self):
        for k, v in self.saved.items():
            if v is None:
                sys.modules.pop(k, None)
            else:
                sys.modules[k] = v

    def names(self, kind):
        return [args[0] for k, args, _ in self.calls if k == kind]

    def test_recipe_declares_variants_dependencies_and_conflicts(self):
        cls = self.module.Copa
        self.assertTrue(issubclass(cls, self.api.CMakePackage))
        self.assertTrue(issubclass(cls, self.api.CudaPackage))  # the cuda and cuda_arch variants
        self.assertTrue({"openmp", "mpi", "nccl", "hip"} <= set(self.names("variant")))
        deps = self.names("depends_on")
        for d in ("cli11@2:", "nlohmann-json@3.10:", "mpi", "nccl", "hip", "googletest", "cmake@3.24:"):
            self.assertIn(d, deps)
        conflicts = [(args[0], kw.get("when")) for k, args, kw in self.calls if k == "conflicts"]
        self.assertIn(("+cuda", "+hip"), conflicts)
        self.assertIn(("+nccl", "~cuda"), conflicts)
        self.assertIn(("+nccl", "~mpi"), conflicts)
        self.assertIn("BSD-3-Clause", self.names("license"))
        with open(os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(RECIPE))), "..", "CMakeLists.txt")) as f:
            version = f.read().split("project(copa VERSION ")[1].split()[0]
        self.assertIn(version, self.names("version"))  # the recipe knows the current version

    def test_cmake_arguments_follow_the_spec(self):
        args = self.module.Copa(Spec(cuda=True, mpi=True, nccl=True, cuda_arch=("90",))).cmake_args()
        for a in ("-DCOPA_ENABLE_CUDA=ON", "-DCOPA_ENABLE_MPI=ON", "-DCOPA_ENABLE_NCCL=ON", "-DCOPA_ENABLE_HIP=OFF",
                  "-DCMAKE_CUDA_ARCHITECTURES=90", "-DCOPA_NATIVE=OFF", "-DCOPA_BUILD_TESTS=OFF"):
            self.assertIn(a, args)
        args = self.module.Copa(Spec(hip=True, openmp=False, amdgpu_target="gfx942")).cmake_args()
        for a in ("-DCOPA_ENABLE_HIP=ON", "-DCOPA_ENABLE_OPENMP=OFF", "-DCMAKE_HIP_ARCHITECTURES=gfx942",
                  "-DCOPA_ENABLE_NCCL=OFF", "-DCOPA_ENABLE_CUDA=OFF"):
            self.assertIn(a, args)
        self.assertFalse(any(a.startswith("-DCMAKE_CUDA_ARCHITECTURES") for a in args))
        # Every option the recipe sets exists in the top-level CMakeLists.txt.
        with open(os.path.join(os.path.dirname(RECIPE), "..", "..", "..", "CMakeLists.txt")) as f:
            cmake = f.read()
        for a in args:
            name = a[2:].split("=")[0]
            if name.startswith("COPA_"):
                self.assertIn(name, cmake)


if __name__ == "__main__":
    unittest.main()
