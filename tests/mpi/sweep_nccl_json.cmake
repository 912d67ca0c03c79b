# fabcheck sweep -J: nccl-tests' JSON layout from a 2-rank sweep, read back by `fabcheck import` equal
# to the sweep's own --json report; "wx" fallbacks; one collective per file.
fabcheck_script_test(NAME mpi.sweep.nccl_json.np2 LABEL mpi TIMEOUT 300 PY sweep_nccl_json.py)
