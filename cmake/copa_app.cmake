# copa_add_app(NAME CORE [SOURCES...]): an app's executable NAME (src/main.cpp and SOURCES) linked to
# its core library CORE, with the suite's target defaults, and the app's tests/ folder when tests
# are built.
function(copa_add_app copa_app_name copa_app_core)
  add_executable(${copa_app_name} src/main.cpp ${ARGN})
  target_link_libraries(${copa_app_name} PRIVATE ${copa_app_core})
  copa_target_defaults(${copa_app_name})
  if(COPA_BUILD_TESTS)
    add_subdirectory(tests)
  endif()
endfunction()
