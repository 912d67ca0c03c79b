# The image, built with no registry and run (deploy/Containerfile: --version, a 2-rank sweep inside, at most
# 250 MB), then configs/k8s-mpijob.yaml rehearsed on it as the MPI operator wires its pods (podman launcher and
# workers). "skipped" without podman/mmdebstrap (ci/setup installs them). The rehearsal needs the built image.
fabcheck_script_test(NAME image_build_and_run LABEL image TIMEOUT 1560 LOCK podman SH test_build_and_run.sh)
fabcheck_script_test(NAME image_mpijob_rehearsal LABEL image TIMEOUT 330 LOCK podman SH test_mpijob_rehearsal.sh)
set_tests_properties(image_build_and_run PROPERTIES SKIP_RETURN_CODE 77 FIXTURES_SETUP fabcheck_image)
set_tests_properties(image_mpijob_rehearsal PROPERTIES SKIP_RETURN_CODE 77 FIXTURES_REQUIRED fabcheck_image)
