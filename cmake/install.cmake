# install() rules and the exported CMake package: `cmake --install BUILD --prefix P` puts the apps,
# copa-probe (and copa-commbench) in P/bin, the common layer's static library and headers in P/lib
# and P/include, the schemas in P/share/copa, and P/lib/cmake/copa/copaConfig.cmake, so that
#   find_package(copa) ... target_link_libraries(mytool PRIVATE copa::common)
# works from the prefix with the same dependencies (CLI11, nlohmann_json, and OpenMP, MPI, CUDA or
# HIP when this build had them).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS copa_common EXPORT copaTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/common/include/copa DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.hpp")
install(FILES ${PROJECT_BINARY_DIR}/common/generated/copa/build_config.hpp
              ${PROJECT_BINARY_DIR}/common/generated/copa/git_info.hpp
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/copa)

set(_copa_programs copa-probe)
if(TARGET copa-commbench)
  list(APPEND _copa_programs copa-commbench)
endif()
foreach(app IN LISTS COPA_APPS)
  if(TARGET ${app})
    list(APPEND _copa_programs ${app})
  endif()
endforeach()
install(TARGETS ${_copa_programs} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/schemas/ DESTINATION ${CMAKE_INSTALL_DATADIR}/copa/schemas)
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/copa)

# What copaConfig.cmake must find again for copa::common's public links.
set(COPA_CONFIG_NEEDS_CUDATOOLKIT OFF)
if(COPA_ENABLE_CUDA OR TARGET CUDA::nvtx3)
  set(COPA_CONFIG_NEEDS_CUDATOOLKIT ON)
endif()
set(_copa_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/copa)
install(EXPORT copaTargets NAMESPACE copa:: DESTINATION ${_copa_cmake_dir})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/copaConfig.cmake.in
  ${PROJECT_BINARY_DIR}/copaConfig.cmake INSTALL_DESTINATION ${_copa_cmake_dir})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/copaConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/copaConfig.cmake ${PROJECT_BINARY_DIR}/copaConfigVersion.cmake
        DESTINATION ${_copa_cmake_dir})
