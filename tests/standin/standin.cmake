# CPU stand-ins of the CUDA runtime and NCCL (test infrastructure, never installed or linked by the product):
# libcudart.so.13 and libnccl.so.2 in ${CMAKE_BINARY_DIR}/standin-lib, which the nccl-standin tests put in front
# of the real libraries (LD_PRELOAD: the binary's RPATH names the real ones) to run the same fabcheck binary's
# NCCL path without a GPU. Built where the NCCL backend is (its headers give the ABI).
if(NOT FABCHECK_HAVE_NCCL)
  return()
endif()
set(FABCHECK_STANDIN_DIR ${CMAKE_BINARY_DIR}/standin-lib)
add_library(fabcheck_cudart_standin SHARED ${CMAKE_CURRENT_LIST_DIR}/cudart_standin.cpp)
add_library(fabcheck_nccl_standin SHARED ${CMAKE_CURRENT_LIST_DIR}/nccl_standin.cpp
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

# fabcheck_standin_test(NAME <name> TIMEOUT <s> COMMAND <args...> [LOCK <resource>]): label nccl-standin, with
# STANDIN_LIB (the folder of the two libraries) in the environment.
function(fabcheck_standin_test)
  cmake_parse_arguments(T "" "NAME;TIMEOUT;LOCK" "COMMAND" ${ARGN})
  fabcheck_script_test(NAME ${T_NAME} LABEL nccl-standin TIMEOUT ${T_TIMEOUT} COMMAND ${T_COMMAND} LOCK ${T_LOCK})
  set_property(TEST ${T_NAME} APPEND PROPERTY ENVIRONMENT "STANDIN_LIB=${FABCHECK_STANDIN_DIR}")
  set_property(TEST ${T_NAME} PROPERTY SKIP_RETURN_CODE 77)
endfunction()
