# fabcheck inspect on local ranks: this machine has no RDMA (libibverbs: ENOSYS) and Debian's MCA file
# excludes UCX → verdict no_rdma_hardware, finding MPI_RDMA_EXCLUDED, exit 0; a host model through --sysfs-root;
# bad input → one stderr line, exit 2.
fabcheck_script_test(NAME mpi.inspect.local2 LABEL mpi TIMEOUT 120 PY inspect_local.py)
# Secret-looking values of recorded NCCL_*/UCX_*/OMPI_MCA_* variables reach no output file.
fabcheck_script_test(NAME mpi.run.secrets_redacted LABEL mpi TIMEOUT 150 PY secrets_redacted.py)
# inspect --nccl-log under mpirun without --sysfs-root: the log judged against the live inventory.
fabcheck_script_test(NAME mpi.inspect.nccl_log_live LABEL mpi TIMEOUT 150 PY inspect_nccl_log_live.py)
