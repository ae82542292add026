# Debian and Ubuntu package HIP under the multiarch directories (lib/x86_64-linux-gnu/cmake,
# .../amdgcn/bitcode), where CMake's HIP language support (3.24 to 3.27) does not look for them.
# This points CMake at the clang that hipcc uses, at the device libraries, and at a ROCm "root"
# whose lib/cmake/hip-lang links to the packaged configuration. Nothing happens on a ROCm install.
set(_copa_multiarch /usr/lib/${CMAKE_LIBRARY_ARCHITECTURE})
if(NOT CMAKE_HIP_COMPILER_ROCM_ROOT AND NOT EXISTS /usr/lib/cmake/hip-lang/hip-lang-config.cmake
   AND EXISTS ${_copa_multiarch}/cmake/hip-lang/hip-lang-config.cmake)
  if(NOT CMAKE_HIP_COMPILER)
    execute_process(COMMAND hipcc --version OUTPUT_VARIABLE _copa_hipcc_version ERROR_QUIET)
    if(_copa_hipcc_version MATCHES "clang version ([0-9]+)")
      find_program(_copa_hip_clang NAMES clang++-${CMAKE_MATCH_1} clang++ REQUIRED)
      set(CMAKE_HIP_COMPILER ${_copa_hip_clang} CACHE FILEPATH "clang used by hipcc")
    endif()
  endif()
  set(_copa_shim ${CMAKE_BINARY_DIR}/debian-rocm-root)
  file(MAKE_DIRECTORY ${_copa_shim}/lib/cmake)
  if(NOT EXISTS ${_copa_shim}/lib/cmake/hip-lang)
    file(CREATE_LINK ${_copa_multiarch}/cmake/hip-lang ${_copa_shim}/lib/cmake/hip-lang SYMBOLIC)
  endif()
  set(CMAKE_HIP_COMPILER_ROCM_ROOT ${_copa_shim} CACHE PATH "ROCm root for CMake's HIP support")
  # hip-lang's own dependencies (amd_comgr, AMDDeviceLibs) are found in CMake's try-compile
  # projects too, which see the environment but not this project's variables.
  set(ENV{CMAKE_PREFIX_PATH} "${_copa_multiarch}/cmake:$ENV{CMAKE_PREFIX_PATH}")
  set(CMAKE_HIP_FLAGS_INIT "--rocm-path=/usr --rocm-device-lib-path=${_copa_multiarch}/amdgcn/bitcode")
endif()
