# `--backend nccl` without a usable GPU: one stderr line, exit 2, for sweep and run; the NCCL-linked
# binary's NEEDED libraries and RPATH.
fabcheck_script_test(NAME mpi.nccl.nogpu.np2 LABEL mpi TIMEOUT 120 SH nccl_backend.sh)
