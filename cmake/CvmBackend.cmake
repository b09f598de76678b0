# cvm_add_backend(): one object library per backend, with ISA flags set per source file.
#
#   cvm_add_backend(NAME simd
#                   SOURCES simd_table.cc
#                   ISA_SOURCES "elementwise_avx2.cc:-mavx2;-mfma")
#
# Backends see only backends/kernel_abi.h (and the standard library): they never include core/.
function(cvm_add_backend)
  cmake_parse_arguments(ARG "" "NAME" "SOURCES;ISA_SOURCES" ${ARGN})
  set(target cvm_backend_${ARG_NAME})
  set(all_sources ${ARG_SOURCES})
  foreach(entry IN LISTS ARG_ISA_SOURCES)
    string(FIND "${entry}" ":" colon)
    string(SUBSTRING "${entry}" 0 ${colon} src)
    math(EXPR flags_start "${colon} + 1")
    string(SUBSTRING "${entry}" ${flags_start} -1 flags)
    string(REPLACE "," ";" flags "${flags}")
    set_source_files_properties(${src} PROPERTIES COMPILE_OPTIONS "${flags}")
    list(APPEND all_sources ${src})
  endforeach()
  add_library(${target} OBJECT ${all_sources})
  target_include_directories(${target} PRIVATE "${PROJECT_SOURCE_DIR}/backends")
  cvm_target_warnings(${target})
  set_property(GLOBAL APPEND PROPERTY CVM_BACKEND_TARGETS ${target})
  set_property(GLOBAL APPEND PROPERTY CVM_BACKEND_NAMES ${ARG_NAME})
endfunction()
