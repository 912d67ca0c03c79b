# The shipped configs state their backend; the MPIJob names the image deploy/Containerfile documents and its
# fabcheck command line is accepted (`run --dry-run`).
fabcheck_script_test(NAME cli_deploy_recipes LABEL unit TIMEOUT 120 PY test_deploy_recipes.py)
