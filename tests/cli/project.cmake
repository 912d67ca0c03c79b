# `fabcheck project`: the scaling model's worked example reproduced from typed-in numbers, and bad input
# refused. No MPI.
fabcheck_script_test(NAME cli_project_worked_example LABEL unit TIMEOUT 60 PY test_project.py)
