# FindNCCL
# --------
# Finds the NCCL library (NVIDIA Collective Communications Library) and the CUDA runtime it runs on.
#
# Hints (CMake variables or environment): NCCL_HOME / NCCL_ROOT (NCCL install prefix), CUDA_HOME / CUDA_PATH
# (CUDA toolkit prefix); /usr/local/cuda is searched last. Only the CUDA *runtime* (libcudart) is linked,
# never the driver library libcuda (the runtime loads it at run time, so a binary built here starts on a
# machine without a GPU driver and can say so).
#
# Result variables:
#   NCCL_FOUND, NCCL_VERSION ("2.28.9", read from NCCL_MAJOR/NCCL_MINOR/NCCL_PATCH in nccl.h),
#   NCCL_VERSION_CODE (22809), NCCL_INCLUDE_DIR, NCCL_LIBRARY, NCCL_LIBRARY_DIR,
#   NCCL_CUDART_INCLUDE_DIR, NCCL_CUDART_LIBRARY, NCCL_CUDART_LIBRARY_DIR,
#   NCCL_LIBRARY_DIRS (the folders of libnccl and libcudart, for RPATHs).
# Imported targets: NCCL::cudart (libcudart, shared) and NCCL::NCCL (libnccl; links NCCL::cudart).

set(_nccl_hints ${NCCL_HOME} $ENV{NCCL_HOME} ${NCCL_ROOT} $ENV{NCCL_ROOT})
set(_cuda_hints ${CUDA_HOME} $ENV{CUDA_HOME} ${CUDA_PATH} $ENV{CUDA_PATH})

find_path(NCCL_INCLUDE_DIR nccl.h HINTS ${_nccl_hints} ${_cuda_hints} PATHS /usr/local/cuda
          PATH_SUFFIXES include)
find_library(NCCL_LIBRARY NAMES nccl HINTS ${_nccl_hints} ${_cuda_hints} PATHS /usr/local/cuda
             PATH_SUFFIXES lib64 lib lib/x86_64-linux-gnu)
find_path(NCCL_CUDART_INCLUDE_DIR cuda_runtime.h HINTS ${_cuda_hints} PATHS /usr/local/cuda
          PATH_SUFFIXES include targets/x86_64-linux/include targets/sbsa-linux/include)
find_library(NCCL_CUDART_LIBRARY NAMES cudart HINTS ${_cuda_hints} PATHS /usr/local/cuda
             PATH_SUFFIXES lib64 lib targets/x86_64-linux/lib targets/sbsa-linux/lib)

set(NCCL_VERSION "")
set(NCCL_VERSION_CODE 0)
if(NCCL_INCLUDE_DIR AND EXISTS "${NCCL_INCLUDE_DIR}/nccl.h")
  file(STRINGS "${NCCL_INCLUDE_DIR}/nccl.h" _nccl_defs REGEX "^#define NCCL_(MAJOR|MINOR|PATCH) +[0-9]+")
  foreach(part MAJOR MINOR PATCH)
    string(REGEX MATCH "NCCL_${part} +([0-9]+)" _m "${_nccl_defs}")
    set(_nccl_${part} "${CMAKE_MATCH_1}")
  endforeach()
  if(NOT _nccl_MAJOR STREQUAL "" AND NOT _nccl_MINOR STREQUAL "" AND NOT _nccl_PATCH STREQUAL "")
    set(NCCL_VERSION "${_nccl_MAJOR}.${_nccl_MINOR}.${_nccl_PATCH}")
    math(EXPR NCCL_VERSION_CODE "${_nccl_MAJOR} * 10000 + ${_nccl_MINOR} * 100 + ${_nccl_PATCH}")
  endif()
endif()

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(NCCL
  REQUIRED_VARS NCCL_LIBRARY NCCL_INCLUDE_DIR NCCL_CUDART_LIBRARY NCCL_CUDART_INCLUDE_DIR
  VERSION_VAR NCCL_VERSION)

if(NCCL_FOUND)
  get_filename_component(NCCL_LIBRARY_DIR "${NCCL_LIBRARY}" DIRECTORY)
  get_filename_component(NCCL_CUDART_LIBRARY_DIR "${NCCL_CUDART_LIBRARY}" DIRECTORY)
  set(NCCL_LIBRARY_DIRS ${NCCL_LIBRARY_DIR} ${NCCL_CUDART_LIBRARY_DIR})
  list(REMOVE_DUPLICATES NCCL_LIBRARY_DIRS)
  if(NOT TARGET NCCL::cudart)
    add_library(NCCL::cudart UNKNOWN IMPORTED)
    set_target_properties(NCCL::cudart PROPERTIES IMPORTED_LOCATION "${NCCL_CUDART_LIBRARY}"
                                                  INTERFACE_INCLUDE_DIRECTORIES "${NCCL_CUDART_INCLUDE_DIR}")
  endif()
  if(NOT TARGET NCCL::NCCL)
    add_library(NCCL::NCCL UNKNOWN IMPORTED)
    set_target_properties(NCCL::NCCL PROPERTIES IMPORTED_LOCATION "${NCCL_LIBRARY}"
                                                INTERFACE_INCLUDE_DIRECTORIES "${NCCL_INCLUDE_DIR}"
                                                INTERFACE_LINK_LIBRARIES NCCL::cudart)
  endif()
endif()
mark_as_advanced(NCCL_INCLUDE_DIR NCCL_LIBRARY NCCL_CUDART_INCLUDE_DIR NCCL_CUDART_LIBRARY)
