# fabcheck scaling on local ranks: groups of 2 and 4 local ranks marked intra_node_only, the score and its
# inputs recomputed from the report's own sweep, the console sentence, bad input (exit 2, one line, no file).
fabcheck_script_test(NAME mpi.scaling.local4 LABEL mpi TIMEOUT 180 PY scaling_local.py)
