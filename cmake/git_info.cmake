# Writes OUT (a header with the git sha and dirty flag of SOURCE_DIR) when they changed, so that
# every build records the commit it was built from without recompiling when nothing changed.
execute_process(COMMAND git -C ${SOURCE_DIR} rev-parse HEAD OUTPUT_VARIABLE sha
                OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  # A copy of the tree without .git (e.g. shipped to a GPU machine): the sender may name the commit.
  if(DEFINED ENV{COPA_GIT_SHA})
    set(sha "$ENV{COPA_GIT_SHA}")
  else()
    set(sha "unknown")
  endif()
endif()
execute_process(COMMAND git -C ${SOURCE_DIR} status --porcelain --untracked-files=no
                OUTPUT_VARIABLE status ERROR_QUIET)
set(dirty false)
if(NOT "${status}" STREQUAL "")
  set(dirty true)
endif()
set(content "#pragma once\n#define COPA_GIT_SHA \"${sha}\"\n#define COPA_GIT_DIRTY ${dirty}\n")
if(EXISTS ${OUT})
  file(READ ${OUT} old)
else()
  set(old "")
endif()
if(NOT "${old}" STREQUAL "${content}")
  file(WRITE ${OUT} "${content}")
endif()
