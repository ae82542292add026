# Runs the command after "--" with a fresh output directory DIR (exit 0 expected), then the Python
# check CHECK (a list: script and its arguments) with PYTHON, this folder on its PYTHONPATH; fails
# on either's failure.
include(${CMAKE_CURRENT_LIST_DIR}/../../cmake/command_after_dashes.cmake)
file(REMOVE_RECURSE ${DIR})
copa_run_ok()
# The checks import the helpers they share (vtk_readback.py) from this folder, without writing
# __pycache__ into the source tree (which may be read-only).
set(ENV{PYTHONDONTWRITEBYTECODE} 1)
if("$ENV{PYTHONPATH}" STREQUAL "")
  set(ENV{PYTHONPATH} "${CMAKE_CURRENT_LIST_DIR}")
else()
  set(ENV{PYTHONPATH} "${CMAKE_CURRENT_LIST_DIR}:$ENV{PYTHONPATH}")
endif()
execute_process(COMMAND ${PYTHON} ${CHECK} RESULT_VARIABLE rc OUTPUT_VARIABLE cout ERROR_VARIABLE cerr)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the check failed (${rc})\n${cout}\n${cerr}\nrun's stdout:\n${out}")
endif()
message(STATUS "${cout}")
