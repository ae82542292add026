"""What a run needs to say about where and how it was produced, captured once per run: git state,
the build's CMake cache, the CPU, the GPU and driver, the OS. Every probe here is best effort: a
missing tool gives null, never an error."""
import os
import platform
import re
import socket
import subprocess


def _run(cmd, cwd=None):
    try:
        p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return p.stdout.strip() if p.returncode == 0 else None


def git_info(repo):
    sha = _run(["git", "rev-parse", "HEAD"], cwd=repo)
    status = _run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=repo)
    return {"sha": sha,
            "dirty": None if status is None else bool(status),
            "branch": _run(["git", "rev-parse", "--abbrev-ref", "HEAD"], cwd=repo)}


def cmake_cache(build_dir):
    """The cache entries that say how the build was configured."""
    wanted = re.compile(r"^(CMAKE_BUILD_TYPE|CMAKE_CXX_COMPILER|CMAKE_CXX_FLAGS|CMAKE_CXX_FLAGS_RELEASE|"
                        r"CMAKE_CUDA_COMPILER|CMAKE_CUDA_ARCHITECTURES|CMAKE_CUDA_FLAGS|CMAKE_HIP_ARCHITECTURES|"
                        r"CMAKE_GENERATOR|COPA_[A-Z_]+):[A-Z]+=(.*)$")
    out = {}
    try:
        with open(os.path.join(build_dir, "CMakeCache.txt"), encoding="utf-8", errors="replace") as f:
            for line in f:
                m = wanted.match(line.rstrip("\n"))
                if m:
                    out[m.group(1)] = m.group(2)
    except OSError:
        return None
    return out


def cpu_info():
    model = None
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = os.cpu_count()
    mem = None
    try:
        mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError):
        pass
    return {"model": model or platform.processor() or None, "logical_cores": os.cpu_count(),
            "usable_cores": usable, "memory_bytes": mem}


def gpu_info():
    """NVIDIA GPUs through nvidia-smi; AMD through rocm-smi's product name; [] when none."""
    out = _run(["nvidia-smi", "--query-gpu=name,driver_version,memory.total", "--format=csv,noheader"])
    gpus = []
    if out:
        for line in out.splitlines():
            parts = [p.strip() for p in line.split(",")]
            if len(parts) >= 3:
                gpus.append({"vendor": "nvidia", "name": parts[0], "driver_version": parts[1], "memory": parts[2]})
        cuda = _run(["nvidia-smi"])
        m = re.search(r"CUDA Version:\s*([\d.]+)", cuda or "")
        for g in gpus:
            g["driver_cuda_version"] = m.group(1) if m else None
    return gpus


def toolkit_versions():
    nvcc = _run(["nvcc", "--version"]) or _run(["/usr/local/cuda/bin/nvcc", "--version"])
    m = re.search(r"release ([\d.]+)", nvcc or "")
    hip = _run(["hipcc", "--version"])
    h = re.search(r"HIP version:\s*(\S+)", hip or "")
    return {"nvcc": m.group(1) if m else None, "hipcc": h.group(1) if h else None}


def machine_info():
    return {"host": socket.gethostname(), "os": platform.platform(), "cpu": cpu_info(), "gpus": gpu_info()}


def default_machine_name(machine):
    """The GPU model when there is one ('NVIDIA H200' -> 'h200'), else the short host name."""
    from .resultset import slug
    if machine.get("gpus"):
        return slug(machine["gpus"][0]["name"])
    return slug(machine.get("host") or "machine")


def project_version(repo):
    """copa's one version: CMake's PROJECT_VERSION, read from the top-level CMakeLists.txt (the apps
    get the same through copa/build_config.hpp)."""
    try:
        with open(os.path.join(repo, "CMakeLists.txt"), encoding="utf-8") as f:
            m = re.search(r"project\(copa\s+VERSION\s+([0-9.]+)", f.read())
    except OSError:
        m = None
    return m.group(1) if m else "unknown"


def version_text(prog):
    """What every tool prints for --version."""
    repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    return f"{prog} (copa) {project_version(repo)}"
