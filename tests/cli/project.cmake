# `fabcheck project`: the scaling model's worked example reproduced from typed-in numbers, and bad input
# refused. No MPI.
fabcheck_script_test(NAME cli_project_worked_example LABEL unit TIMEOUT 60
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/test_project.py)
