# `fabcheck nics --nccl-log` on local ranks given distinct host names by tests/mpi/fake_hosts.sh: the
# log's bootstrap on lo is NICS_MGMT_IN_USE, on the measured data NIC it is quiet, an unreadable log exits 2.
fabcheck_script_test(NAME mpi.nics.nccl_log LABEL mpi TIMEOUT 180 SKIP 77 PY nics_nccl_log.py)
