# CPU stand-ins of the CUDA runtime and NCCL (test infrastructure, never installed or linked by the product):
# libcudart.so.13 and libnccl.so.2 in ${CMAKE_BINARY_DIR}/standin-lib, which the nccl-standin tests put in front
# of the real libraries (LD_PRELOAD: the binary's RPATH names the real ones) to run the same fabcheck binary's
# NCCL path without a GPU. Built where the NCCL backend is (its headers give the ABI).
if(NOT FABCHECK_HAVE_NCCL)
  return()
endif()
set(FABCHECK_STANDIN_DIR ${CMAKE_BINARY_DIR}/standin-lib)
add_library(fabcheck_cudart_standin SHARED ${CMAKE_CURRENT_LIST_DIR}/cudart_standin.cpp)
add_library(fabcheck_nccl_standin SHARED ${CMAKE_CURRENT_LIST_DIR}/nccl_standin_init.cpp ${CMAKE_CURRENT_LIST_DIR}/nccl_standin_ops.cpp
            ${CMAKE_CURRENT_LIST_DIR}/nccl_standin_net.cpp ${CMAKE_CURRENT_LIST_DIR}/nccl_standin_log.cpp
            ${CMAKE_CURRENT_LIST_DIR}/nccl_standin_reduce.cpp)
foreach(t cudart nccl)
  # no unity batches: each stand-in file keeps its own anonymous namespace
  set_target_properties(fabcheck_${t}_standin PROPERTIES OUTPUT_NAME ${t} LIBRARY_OUTPUT_DIRECTORY ${FABCHECK_STANDIN_DIR}
                                                        UNITY_BUILD OFF)
  target_include_directories(fabcheck_${t}_standin SYSTEM PRIVATE ${NCCL_INCLUDE_DIR} ${NCCL_CUDART_INCLUDE_DIR})
  target_link_libraries(fabcheck_${t}_standin PRIVATE Threads::Threads fabcheck_warnings)
  target_link_options(fabcheck_${t}_standin PRIVATE -Wl,--version-script=${CMAKE_CURRENT_LIST_DIR}/lib${t}.map)
endforeach()
set_target_properties(fabcheck_cudart_standin PROPERTIES SOVERSION 13)
set_target_properties(fabcheck_nccl_standin PROPERTIES SOVERSION 2)
target_link_libraries(fabcheck_nccl_standin PRIVATE fabcheck_cudart_standin)

# fabcheck_standin_test(NAME <name> TIMEOUT <s> COMMAND|PY|SH <args...> [LOCK <resource>]): label nccl-standin,
# exit 77 skipped, with STANDIN_LIB (the folder of the two libraries) in the environment.
function(fabcheck_standin_test)
  cmake_parse_arguments(T "" "NAME;TIMEOUT" "" ${ARGN})
  fabcheck_script_test(NAME ${T_NAME} LABEL nccl-standin TIMEOUT ${T_TIMEOUT} SKIP 77 ${T_UNPARSED_ARGUMENTS})
  set_property(TEST ${T_NAME} APPEND PROPERTY ENVIRONMENT "STANDIN_LIB=${FABCHECK_STANDIN_DIR}")
endfunction()

# The sweep's exact data check on the nccl backend: every collective, dtype (fp8 on the stand-in's sm90) and op
# on 1, 2 and 4 ranks; -o avg on 3 ranks (1/3 is inexact: NCCL's premultiplied average); -m 4; a corrupted result.
set(_sweep_check ${PROJECT_SOURCE_DIR}/tests/mpi/sweep_check.py)
foreach(case "all 1" "all 2" "all 4" "avg 3" "agg 2" "corrupt 2")
  string(REPLACE " " ".np" _name "${case}")
  separate_arguments(_args UNIX_COMMAND "${case}")
  fabcheck_standin_test(NAME nccl_standin.sweep.${_name} TIMEOUT 300
                        COMMAND ${Python3_EXECUTABLE} ${_sweep_check} ${_args})
  set_property(TEST nccl_standin.sweep.${_name} APPEND PROPERTY ENVIRONMENT "SWEEP_ARGS=--backend nccl")
endforeach()
fabcheck_standin_test(NAME nccl_standin.flags.np2 TIMEOUT 300 PY nccl_flags.py)
fabcheck_standin_test(NAME nccl_standin.faults.np2 TIMEOUT 300 SH faults.sh)
fabcheck_standin_test(NAME nccl_standin.overlap.np2 TIMEOUT 120 PY overlap.py)
# Across the 4-host virtual fabric (one at a time with the fabric tests; exit 77 = skipped without namespaces).
fabcheck_standin_test(NAME nccl_standin.run.vfabric4 TIMEOUT 240 LOCK vfabric SH test_run_vfabric.sh)
