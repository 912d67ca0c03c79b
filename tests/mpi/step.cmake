# fabcheck step on local ranks: the DDP, auto-scaled and FSDP steps, measured efficiency and exposed
# recomputed from the medians the report holds, the projection beside them, the run step's score.basis, bad
# input (exit 2, one line, no file).
fabcheck_script_test(NAME mpi.step.local4 LABEL mpi TIMEOUT 300 PY step_local.py)
