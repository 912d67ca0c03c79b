# Offline CLI test of `fabcheck inspect --nccl-log` (no MPI; fast, so it runs with the unit label).
fabcheck_script_test(NAME cli_inspect_nccl_log LABEL unit TIMEOUT 60 SH inspect_nccl_log.sh)
