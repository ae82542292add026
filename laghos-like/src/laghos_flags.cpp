#include "laghos_flags.hpp"

#include <cstdlib>

#include "copa/errors.hpp"

namespace laghos {

namespace {

// A Laghos flag taking one value, and the laghos-like option it stands for.
struct Alias {
  const char* laghos;
  const char* option;
  const char* note;  // for --help
};

constexpr Alias kAliases[] = {
    {"-p", "--problem", "0, 1, 3, 4"},
    {"-m", "--mesh", "data/NAME.mesh -> NAME (a built-in mesh; the file is not read)"},
    {"-dim", "--dim", ""},
    {"-nx", "--nx", ""},
    {"-ny", "--ny", ""},
    {"-nz", "--nz", ""},
    {"-rs", "--refine", ""},
    {"-ok", "--order-k", ""},
    {"-ot", "--order-t", ""},
    {"-s", "--ode", "4 -> rk4, 7 -> rk2avg"},
    {"-tf", "--tf", ""},
    {"-cfl", "--cfl", ""},
    {"-cgt", "--cg-tol", ""},
    {"-cgm", "--cg-max", ""},
    {"-ms", "--max-steps", ""},
    {"-vs", "--print-every", ""},
    {"-E0", "--energy", ""},
    {"-epm", "--zones-per-rank", "n^dim zones per rank"},
    {"-d", "--backend", "cpu -> serial, omp -> openmp, cuda, hip"},
    {"-dev", "--device", ""},
};

// Laghos flags without a value that change nothing here (laghos-like always does what they ask
// for, or they switch off what laghos-like does not have); -gam is the CUDA-aware transport.
struct Switch {
  const char* laghos;
  const char* replacement;  // empty: dropped
  const char* note;
};

constexpr Switch kSwitches[] = {
    {"-pa", "", "partial assembly: the only assembly here"},
    {"-no-vis", "", "no GLVis output here"},
    {"-f", "", "the FOM is always printed"},
    {"-fom", "", "the FOM is always printed"},
    {"-no-nc", "", "the meshes are conforming"},
    {"-no-gam", "", "the default transport (host)"},
    {"-gam", "--transport=cuda-aware", "GPU-aware MPI"},
};

// Laghos flags refused, with why.
struct Refused {
  const char* laghos;
  const char* why;
};

constexpr Refused kRefused[] = {
    {"-vis", "GLVis visualization is not available in laghos-like"},
    {"-visit", "VisIt output is not available in laghos-like"},
    {"-print", "MFEM grid-function output is not available in laghos-like"},
    {"-fa", "full assembly is not implemented (laghos-like is partial assembly only)"},
    {"-rp", "parallel refinement is not separate here: use -rs (the global mesh is refined, then cut into boxes)"},
    {"-nc", "non-conforming meshes are not implemented"},
    {"-oq", "the quadrature order is fixed at Laghos's default (2k Gauss-Legendre points per direction)"},
    {"-c", "Cartesian partitioning is laghos-like's only one: give the process grid with --proc-grid"},
    {"-pt", "give the process grid with --proc-grid"},
};

bool is_number(const std::string& s) {
  if (s.empty()) return false;
  char* end = nullptr;
  std::strtod(s.c_str(), &end);
  return end && *end == '\0';
}

std::string translate_value(const std::string& flag, const std::string& value) {
  if (flag == "-s") {
    if (value == "4") return "rk4";
    if (value == "7") return "rk2avg";
    throw copa::InputError("-s " + value + ": laghos-like has RK4 (-s 4) and RK2Avg (-s 7) only");
  }
  if (flag == "-d") {
    if (value == "cpu") return "serial";
    if (value == "omp") return "openmp";
    if (value == "cuda" || value == "hip") return value;
    throw copa::InputError("-d " + value + ": the MFEM devices laghos-like maps are cpu, omp, cuda and hip");
  }
  return value;
}

}  // namespace

std::vector<std::string> translate_laghos_flags(int argc, const char* const* argv) {
  std::vector<std::string> out;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    // Long options, numbers (negative values) and single letters CLI11 knows (-h) pass unchanged.
    if (a.size() < 2 || a[0] != '-' || a[1] == '-' || is_number(a)) {
      out.push_back(a);
      continue;
    }
    bool done = false;
    for (const Alias& m : kAliases) {
      if (a != m.laghos) continue;
      if (i + 1 >= argc) throw copa::InputError(a + ": needs a value (Laghos's " + a + " is " + m.option + ")");
      out.push_back(m.option);
      out.push_back(translate_value(a, argv[++i]));
      done = true;
      break;
    }
    for (const Switch& s : kSwitches) {
      if (done || a != s.laghos) continue;
      if (*s.replacement) out.push_back(s.replacement);
      done = true;
    }
    for (const Refused& r : kRefused)
      if (!done && a == r.laghos) throw copa::InputError(a + ": " + r.why);
    if (done) continue;
    if (a.size() > 2)
      throw copa::InputError(a + ": not an option of laghos-like, nor a Laghos flag it maps (see --help)");
    out.push_back(a);  // a single letter: CLI11 decides (-h, or an error with exit 2)
  }
  return out;
}

std::string laghos_flags_help() {
  std::string h = "Laghos flags accepted as aliases (rewritten before parsing):\n";
  for (const Alias& m : kAliases)
    h += "  " + std::string(m.laghos) + " V -> " + m.option + " V" + (*m.note ? std::string("  (") + m.note + ")" : "") + "\n";
  for (const Switch& s : kSwitches)
    h += "  " + std::string(s.laghos) + " -> " + (*s.replacement ? s.replacement : "(nothing)") + "  (" + s.note + ")\n";
  h += "Refused (exit 2):";
  for (const Refused& r : kRefused) h += std::string(" ") + r.laghos;
  return h + "\n";
}

}  // namespace laghos
