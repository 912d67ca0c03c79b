# fabcheck run + configs/acceptance/vfabric.json on a 4-host virtual fabric: every section filled, the gate
# passes clean (exit 0) and fails with one host at 100mbit (exit 1, the failing checks named). ~60 s; bounds itself
# to 200 s.
fabcheck_script_test(NAME fabric_run_acceptance LABEL fabric TIMEOUT 320 LOCK vfabric SKIP 77 SH test_run_acceptance.sh)
# The watchdog: a data link pulled during the sweep and during pairs ends the job with exit 3 within
# --timeout + the abort grace, the report naming the unreachable host. ~60 s; bounds itself to 200 s.
fabcheck_script_test(NAME fabric_watchdog_link_down LABEL fabric fabric-functional TIMEOUT 240 LOCK vfabric SKIP 77
                     SH test_watchdog_link_down.sh)
# The same under Slurm: srun --mpi=pmix returns fabcheck's exit 3, run.launcher says srun. ~30 s.
fabcheck_script_test(NAME fabric_slurm_link_down LABEL fabric fabric-functional TIMEOUT 240 LOCK vfabric SKIP 77
                     COMMAND env WD_LAUNCHER=srun bash ${CMAKE_CURRENT_LIST_DIR}/test_watchdog_link_down.sh)
# Launched as clusters launch it: srun sweep (one rank per host), srun run with the acceptance gate (exit 0 clean,
# 1 with a throttled host; the good-hosts file as srun --nodefile), deploy/fabcheck.sbatch through sbatch. ~90 s.
fabcheck_script_test(NAME fabric_slurm LABEL fabric TIMEOUT 340 LOCK vfabric SKIP 77 SH test_slurm.sh)
# The first screen with the embedded default config: clean -> exit 0 and quiet; one host throttled -> exit 1,
# that host named first and left out of the good-hosts file (FS_CASES="clean host link" adds one link direction
# throttled -> that link named first, no host blamed; fabric_run_acceptance checks it with its config). Two default
# runs, ~170 s; bounds itself to 800 s.
fabcheck_script_test(NAME fabric_first_screen LABEL fabric TIMEOUT 840 LOCK vfabric SKIP 77 SH test_first_screen.sh)
