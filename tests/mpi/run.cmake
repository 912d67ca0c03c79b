# fabcheck run: the main job on 4 local ranks, the watchdog (hang), a killed rank.
fabcheck_script_test(NAME mpi.run.default4 LABEL mpi TIMEOUT 300 PY run_main.py)
fabcheck_script_test(NAME mpi.run.hang LABEL mpi TIMEOUT 90 PY run_hang.py)
fabcheck_script_test(NAME mpi.run.freeze LABEL mpi TIMEOUT 120 PY run_freeze.py)
fabcheck_script_test(NAME mpi.run.freeze_root LABEL mpi TIMEOUT 120 PY run_freeze_root.py)
# The standalone probe commands have the same watchdog (-T, on by default).
fabcheck_script_test(NAME mpi.probe.freeze LABEL mpi TIMEOUT 240 PY probe_freeze.py)
fabcheck_script_test(NAME mpi.run.kill LABEL mpi TIMEOUT 300 PY run_kill.py)
# One definition per option: run.config is a valid --config; latency alone and in run write the same keys.
fabcheck_script_test(NAME mpi.run.one_definition LABEL mpi TIMEOUT 300 PY run_one_definition.py)
# A flag error under mpirun prints its one line every time: 50 launches under a CPU hog. ~30 s.
fabcheck_script_test(NAME mpi.flag_error_lines LABEL mpi TIMEOUT 240 PY flag_error_lines.py)
# The latency step keeps to its budget (each section stops at its share and says so) and every step
# records the CPU load beside it.
fabcheck_script_test(NAME mpi.run.latency_budget LABEL mpi TIMEOUT 120 PY run_budget.py)
