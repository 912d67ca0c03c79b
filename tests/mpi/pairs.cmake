# `fabcheck pairs` on one host (issue 6): pairs needs two hosts -> exit 2 with one error line, no report written;
# bad flags -> exit 2. 2 and 4 local ranks.
foreach(np 2 4)
  fabcheck_script_test(NAME mpi.pairs.one_host_np${np} LABEL mpi TIMEOUT 60
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/mpi/pairs_one_host.sh ${np})
endforeach()
