# fabcheck latency on local ranks: histogram counts add up in every section, duration mode, a rank that
# owns the tail ranks first, bad input gives one stderr line and exit 2.
foreach(case basic duration straggler badinput)
  fabcheck_script_test(NAME mpi_latency_${case} LABEL mpi TIMEOUT 300 PY latency_test.py ${case})
endforeach()
# Compare of a fabcheck latency run on 2 local ranks with an imported osu_latency run lines up the sizes.
fabcheck_script_test(NAME mpi.latency.vs_osu_import LABEL mpi TIMEOUT 180 PY latency_vs_osu.py)
