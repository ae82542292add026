# COPA_SANITIZE: AddressSanitizer + UndefinedBehaviorSanitizer on every host target (the serial and
# OpenMP backends and their tests). GPU code is checked with compute-sanitizer instead
# (scripts/gpu-check, stage sanitize), so a sanitized build has no GPU backend.
option(COPA_SANITIZE "Build host code with AddressSanitizer + UndefinedBehaviorSanitizer" OFF)
if(NOT COPA_SANITIZE)
  return()
endif()
if(COPA_ENABLE_CUDA OR COPA_ENABLE_HIP)
  message(FATAL_ERROR "COPA_SANITIZE is for the host backends: configure it without CUDA/HIP (the asan preset); "
                      "GPU code is checked by compute-sanitizer (scripts/gpu-check --stages sanitize)")
endif()
# -fno-sanitize-recover: undefined behaviour ends the program, so a test cannot pass over it.
# -fno-omit-frame-pointer: whole stacks in the reports at -O2.
add_compile_options("$<$<COMPILE_LANGUAGE:CXX>:-fsanitize=address,undefined;-fno-sanitize-recover=undefined;-fno-omit-frame-pointer>")
add_link_options(-fsanitize=address,undefined)

# Every test of a sanitized build runs with these (copa_add_test and copa_expect_exit add them).
# exitcode=86: an error found by a sanitizer must not look like an app's own exit code (1 verification
# failed, 2 bad input, 3 runtime failure), which the exit-code tests expect.
# The suppressions name only leaks of libgomp's thread pool, which it never frees.
set(_copa_san_common "exitcode=86:print_stacktrace=1")
set(COPA_SANITIZER_ENVIRONMENT
  "ASAN_OPTIONS=${_copa_san_common}:detect_leaks=1:check_initialization_order=1:strict_init_order=1:detect_stack_use_after_return=1"
  "UBSAN_OPTIONS=${_copa_san_common}:halt_on_error=1"
  "LSAN_OPTIONS=${_copa_san_common}:suppressions=${PROJECT_SOURCE_DIR}/cmake/lsan.supp")
