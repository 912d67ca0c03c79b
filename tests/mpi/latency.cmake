# fabcheck latency on local ranks (issue 5): histogram counts add up in every section, duration mode, a rank that
# owns the tail ranks first, bad input gives one stderr line and exit 2.
foreach(case basic duration straggler badinput)
  fabcheck_script_test(NAME mpi_latency_${case} LABEL mpi TIMEOUT 300
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/mpi/latency_test.py ${case})
endforeach()
