# The version.consistent test: VERSION, js/package.json's "version", `cvmrt --version` and the
# demo's dependency on the packed tarball (demo/package.json: file:../build/cvmrt-VERSION.tgz)
# agree.
#   cmake -DSOURCE_DIR=<repository> -DCLI=<the cvmrt tool> -P version_consistent.cmake
cmake_minimum_required(VERSION 3.25)
file(STRINGS "${SOURCE_DIR}/VERSION" version)
file(READ "${SOURCE_DIR}/js/package.json" package)
string(JSON npm_version ERROR_VARIABLE json_error GET "${package}" version)
if(json_error)
  message(FATAL_ERROR "js/package.json: no \"version\" string (${json_error})")
endif()
execute_process(COMMAND "${CLI}" --version OUTPUT_VARIABLE out ERROR_VARIABLE err
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT out MATCHES "^cvmrt ([^ \n]+) ")
  message(FATAL_ERROR "cvmrt --version failed (exit ${rc}) or printed no version:\n${out}${err}")
endif()
set(cli_version "${CMAKE_MATCH_1}")
if(NOT version STREQUAL npm_version OR NOT version STREQUAL cli_version)
  message(FATAL_ERROR "versions disagree: VERSION \"${version}\", js/package.json "
                      "\"${npm_version}\", cvmrt --version \"${cli_version}\"")
endif()
file(READ "${SOURCE_DIR}/demo/package.json" demo)
string(JSON demo_dep ERROR_VARIABLE json_error GET "${demo}" dependencies cvmrt)
if(NOT demo_dep STREQUAL "file:../build/cvmrt-${version}.tgz")
  message(FATAL_ERROR "demo/package.json depends on \"${demo_dep}\", expected "
                      "\"file:../build/cvmrt-${version}.tgz\" (the tarball of this version)")
endif()
message(STATUS "version ${version}: VERSION, js/package.json, cvmrt --version and the demo agree")
