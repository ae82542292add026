// A rank that fails while the others wait in a collective: guarded_main must end every rank with
// MPI_Abort and the failure's exit code (argv[1]: 2 = bad input, 3 = runtime failure), not hang.
#include <string>

#include "copa/errors.hpp"
#include "copa/mpi.hpp"

int main(int argc, char** argv) {
  copa::mpi::Session mpi_session(argc, argv);
  const int code = argc > 1 ? std::stoi(argv[1]) : copa::exit_runtime_failure;
  return copa::guarded_main([&]() -> int {
    if (copa::mpi::rank() == copa::mpi::size() - 1) {
      if (code == copa::exit_bad_input) throw copa::InputError("--test: the last rank refuses its input");
      throw copa::RuntimeError("the last rank fails at run time");
    }
    copa::mpi::barrier();  // the other ranks would wait here forever without the abort
    return copa::exit_ok;
  });
}
