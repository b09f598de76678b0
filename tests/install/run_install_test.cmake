# Installs the build tree into a scratch prefix, then builds and runs the consumer project.
# Invoked by ctest: cmake -DBUILD_DIR=... -DWORK_DIR=... -DSOURCE_DIR=... -P run_install_test.cmake
file(REMOVE_RECURSE "${WORK_DIR}")
set(prefix "${WORK_DIR}/prefix")
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "FAILED: ${ARGN}\n${out}\n${err}")
  endif()
  message("${out}")
endfunction()
run(${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${prefix}")
# The installed tool runs as a new user would run it: no LD_LIBRARY_PATH, its own run path
# ($ORIGIN/../lib) finds the installed library, and that library is the one it loads.
unset(ENV{LD_LIBRARY_PATH})
execute_process(COMMAND "${prefix}/bin/cvmrt" info RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "^cvmrt [0-9]+\\.[0-9]+\\.[0-9]+")
  message(FATAL_ERROR "FAILED: the installed ${prefix}/bin/cvmrt info (exit ${rc}):\n${out}\n${err}")
endif()
execute_process(COMMAND ldd "${prefix}/bin/cvmrt" OUTPUT_VARIABLE ldd_out RESULT_VARIABLE rc)
string(REGEX MATCH "libcvmrt\\.so[^\n]*" cvm_line "${ldd_out}")
if(NOT rc EQUAL 0 OR NOT cvm_line MATCHES "=> ${prefix}/(bin/\\.\\./)?lib/libcvmrt\\.so")
  message(FATAL_ERROR "FAILED: the installed cvmrt does not load ${prefix}/lib/libcvmrt.so:\n${ldd_out}")
endif()
set(ENV{PKG_CONFIG_PATH} "${prefix}/lib/pkgconfig")
run(${CMAKE_COMMAND} -S "${SOURCE_DIR}/consumer" -B "${WORK_DIR}/build" "-DCMAKE_PREFIX_PATH=${prefix}"
    "-DCMAKE_BUILD_RPATH=${prefix}/lib")
run(${CMAKE_COMMAND} --build "${WORK_DIR}/build")
run("${WORK_DIR}/build/consumer_cmake")
run("${WORK_DIR}/build/consumer_pkgconfig")
