# fabcheck overlap on local ranks: the report's points, the overlap formula recomputed from the
# medians it reports, the run step, bad input (exit 2, one line, no file).
fabcheck_script_test(NAME mpi.overlap.local4 LABEL mpi TIMEOUT 180 PY overlap_local.py)
