# Incast on a 6-host virtual fabric (issue 7): a throttled receiver with a short queue congests the bystander
# (victim) >= 5x and >= 3x the largest of 3 clean runs; overlap >= 0.9; goodput <= 1.1x the tbf rate. The script
# bounds itself to 150 s (measured ~30 s). Label fabric, one at a time (RESOURCE_LOCK vfabric), exit 77 = skipped.
fabcheck_script_test(NAME fabric_incast_victim LABEL fabric TIMEOUT 180 LOCK vfabric
                     COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/test_incast.sh)
set_tests_properties(fabric_incast_victim PROPERTIES SKIP_RETURN_CODE 77)
