# fabcheck sweep on local ranks: every row recomputed, every collective/dtype/op checked exactly,
# corrupt and delay test faults, bad input. Sizes and iteration counts are as small as each assertion allows.
foreach(np 2 4)
  fabcheck_script_test(NAME mpi.sweep.rows.np${np} LABEL mpi TIMEOUT 600 PY sweep_check.py rows ${np})
  fabcheck_script_test(NAME mpi.sweep.corrupt.np${np} LABEL mpi TIMEOUT 300 PY sweep_check.py corrupt ${np})
endforeach()
foreach(np 2 3 4)
  fabcheck_script_test(NAME mpi.sweep.avg.np${np} LABEL mpi TIMEOUT 300 PY sweep_check.py avg ${np})
  fabcheck_script_test(NAME mpi.sweep.agg.np${np} LABEL mpi TIMEOUT 300 PY sweep_check.py agg ${np})
endforeach()
fabcheck_script_test(NAME mpi.sweep.all.np3 LABEL mpi TIMEOUT 300 PY sweep_check.py all 3)
fabcheck_script_test(NAME mpi.sweep.delay.np4 LABEL mpi TIMEOUT 300 PY sweep_check.py delay 4)
fabcheck_script_test(NAME mpi.sweep.bad.np2 LABEL mpi TIMEOUT 600 PY sweep_check.py bad 2)
# Real nccl-tests command lines and every nccl-tests flag: run with the nccl-tests meaning or one line
# naming the backend that has it, never "unknown flag".
fabcheck_script_test(NAME mpi.sweep.nccl_tests_cmdlines LABEL mpi TIMEOUT 300 PY nccl_tests_cmdlines.py)
