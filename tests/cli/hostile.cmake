# Hostile input against the offline commands and run --dry-run: exit 2 with one line, < 10 s, under a
# 1 GiB address-space limit, nothing outside the test's temp folder touched. No MPI launcher (singleton).
fabcheck_script_test(NAME cli_hostile LABEL unit TIMEOUT 240 PY test_hostile.py)
