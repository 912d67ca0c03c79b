# fabcheck incast on local ranks: structure of the report, one-host note, bad input (exit 2, one line, no file).
fabcheck_script_test(NAME mpi.incast.local4 LABEL mpi TIMEOUT 120 PY incast_local.py)
