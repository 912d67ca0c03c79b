# One definition per option: command flags = option table = run's config keys, same defaults; the
# effective config is a valid --config. No mpirun (fabcheck run --show-config starts MPI as a singleton).
fabcheck_script_test(NAME cli_option_tables LABEL unit TIMEOUT 120 PY test_option_tables.py)
