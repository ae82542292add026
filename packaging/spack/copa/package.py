# Spack recipe for copa (co-design proxy apps). Copy this directory into a Spack repository
# (spack repo create, then packages/copa/package.py) and `spack install copa +cuda cuda_arch=90`.
# The git address is the project's canonical repository; set it where the project is published.

from spack.package import *


class Copa(CMakePackage, CudaPackage):
    """copa: four GPU proxy mini-apps (laghos-like, ramses-oct, mom-efie, mps-density) in serial,
    OpenMP, CUDA and HIP variants, each verified against a real reference and measured against the
    machine's roofline, with a suite runner and machine-vs-machine comparison reports."""

    homepage = "https://github.com/copa-proxy-apps/copa"
    git = "https://github.com/copa-proxy-apps/copa.git"

    license("BSD-3-Clause")

    version("main", branch="main")
    version("0.1.0", tag="v0.1.0")

    variant("openmp", default=True, description="Build the OpenMP backends")
    variant("mpi", default=False, description="Distributed runs: rank/GPU binding, halo exchange, reduced timings")
    variant("nccl", default=False, description="NCCL halo transport (needs +cuda and +mpi)")
    variant("hip", default=False, description="Build the HIP backends (exclusive with +cuda)")
    variant(
        "amdgpu_target",
        default="gfx90a",
        values=("gfx90a", "gfx942", "gfx1100"),
        multi=False,
        description="AMD GPU architecture of the HIP build",
    )
    # "cuda" and "cuda_arch" come from CudaPackage.

    conflicts("+cuda", when="+hip", msg="one GPU runtime per build: choose +cuda or +hip")
    conflicts("+nccl", when="~cuda", msg="the NCCL transport needs +cuda")
    conflicts("+nccl", when="~mpi", msg="the NCCL transport needs +mpi")

    depends_on("cxx", type="build")
    depends_on("cmake@3.24:", type="build")
    depends_on("ninja", type="build")
    depends_on("cli11@2:")
    depends_on("nlohmann-json@3.10:")
    depends_on("openblas")
    depends_on("mpi", when="+mpi")
    depends_on("netlib-scalapack", when="+mpi")
    depends_on("nccl", when="+nccl")
    depends_on("hip", when="+hip")
    depends_on("googletest", type="test")
    depends_on("hwloc", type="run")
    depends_on("python@3.9:", type="run")
    depends_on("py-matplotlib", type="run")
    depends_on("py-jsonschema", type="test")

    generator("ninja")

    def cmake_args(self):
        spec = self.spec
        args = [
            self.define_from_variant("COPA_ENABLE_OPENMP", "openmp"),
            self.define_from_variant("COPA_ENABLE_MPI", "mpi"),
            self.define_from_variant("COPA_ENABLE_CUDA", "cuda"),
            self.define_from_variant("COPA_ENABLE_HIP", "hip"),
            self.define("COPA_ENABLE_NCCL", "ON" if spec.satisfies("+nccl") else "OFF"),
            # Spack chooses the target's flags; -march=native would tie the binary to the build host.
            self.define("COPA_NATIVE", False),
            self.define("COPA_BUILD_TESTS", self.run_tests),
        ]
        if spec.satisfies("+cuda"):
            archs = spec.variants["cuda_arch"].value
            if archs and archs[0] != "none":
                args.append(self.define("CMAKE_CUDA_ARCHITECTURES", ";".join(archs)))
        if spec.satisfies("+hip"):
            args.append(self.define("CMAKE_HIP_ARCHITECTURES", spec.variants["amdgpu_target"].value))
        return args
