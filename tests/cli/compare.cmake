# `fabcheck compare` offline: console, --json report with a compare section, --html page, --label, and
# bad input (not a report, newer schema_version, truncated, no metric in common) -> one stderr line, exit 2. No MPI.
fabcheck_script_test(NAME cli_compare LABEL unit TIMEOUT 60 PY test_compare.py)
