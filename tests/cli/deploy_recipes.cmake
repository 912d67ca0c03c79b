# The shipped configs state their backend; deploy/Dockerfile, configs/k8s-mpijob.yaml and
# deploy/fabcheck.sbatch are linted and their fabcheck command lines accepted (`run --dry-run`).
fabcheck_script_test(NAME cli_deploy_recipes LABEL unit TIMEOUT 120
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/test_deploy_recipes.py)
