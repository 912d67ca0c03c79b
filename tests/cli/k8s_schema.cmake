# configs/k8s-mpijob.yaml validates against the kubeflow.org/v2beta1 MPIJob CRD schema (tests/data/k8s), and broken
# copies of it are rejected. Needs PyYAML and jsonschema (skips with 77 without them).
# ci/setup installs those as Debian packages (python3-yaml, python3-jsonschema), which only the system interpreter
# imports: the Python3_EXECUTABLE found first on PATH may be a pyenv build that does not see dist-packages.
set(_fabcheck_k8s_python ${Python3_EXECUTABLE})
if(EXISTS /usr/bin/python3)
  set(_fabcheck_k8s_python /usr/bin/python3)
endif()
fabcheck_script_test(NAME cli_k8s_mpijob_schema LABEL unit TIMEOUT 60 SKIP 77
  COMMAND ${_fabcheck_k8s_python} ${CMAKE_CURRENT_LIST_DIR}/test_k8s_mpijob_schema.py)
