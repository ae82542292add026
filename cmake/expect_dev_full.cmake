# cmake -DOPTION=--json [-DLINK=DIR/FILE] -P expect_dev_full.cmake -- COMMAND ARGS...
# Runs the command, which writes its OPTION output to /dev/full (given on the command line, or
# through LINK: a symbolic link to /dev/full made in a fresh DIR, for outputs named by the app such
# as the VTK files), and fails unless it exits 3 with a message naming OPTION and the file.
include(${CMAKE_CURRENT_LIST_DIR}/command_after_dashes.cmake)
set(file /dev/full)
if(LINK)
  get_filename_component(dir "${LINK}" DIRECTORY)
  file(REMOVE_RECURSE "${dir}")
  file(MAKE_DIRECTORY "${dir}")
  file(CREATE_LINK /dev/full "${LINK}" SYMBOLIC)
  set(file "${LINK}")
endif()
execute_process(COMMAND ${cmd} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT "${rc}" STREQUAL "3")
  message(FATAL_ERROR "expected exit code 3 for ${OPTION} on /dev/full, got ${rc}\nstdout:\n${out}\nstderr:\n${err}")
endif()
string(FIND "${err}" "${OPTION}" at_option)
string(FIND "${err}" "${file}" at_file)
if(at_option LESS 0 OR at_file LESS 0)
  message(FATAL_ERROR "exit 3, but the message does not name ${OPTION} and ${file}:\n${err}")
endif()
message(STATUS "exit 3 naming ${OPTION} and ${file}: ${err}")
