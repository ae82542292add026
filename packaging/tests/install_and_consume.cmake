# cmake -DBUILD=<copa build> -DWORK=<scratch dir> -DCONSUMER=<consumer source> -P install_and_consume.cmake
# Installs the build into WORK/prefix, configures and builds the consumer project against it with
# find_package(copa) (CMAKE_PREFIX_PATH = the prefix only), runs it, and checks the installed tree.
file(REMOVE_RECURSE ${WORK})
set(prefix ${WORK}/prefix)
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  message(STATUS "${out}")
endfunction()
run(${CMAKE_COMMAND} --install ${BUILD} --prefix ${prefix})
file(GLOB config ${prefix}/lib*/cmake/copa/copaConfig.cmake)
if(NOT config)
  message(FATAL_ERROR "not installed: ${prefix}/lib/cmake/copa/copaConfig.cmake")
endif()
foreach(f include/copa/report.hpp include/copa/build_config.hpp share/copa/schemas/copa-result-1.schema.json
          bin/copa-probe)
  if(NOT EXISTS ${prefix}/${f})
    message(FATAL_ERROR "not installed: ${prefix}/${f}")
  endif()
endforeach()
run(${CMAKE_COMMAND} -S ${CONSUMER} -B ${WORK}/consumer -G Ninja -DCMAKE_PREFIX_PATH=${prefix}
    -DCMAKE_BUILD_TYPE=Release)
run(${CMAKE_COMMAND} --build ${WORK}/consumer)
run(${WORK}/consumer/consumer)
