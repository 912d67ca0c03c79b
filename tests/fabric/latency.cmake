# fabcheck latency on a 4-host virtual fabric: clean fabric has no outlier pair; a host throttled to 20mbit
# with iperf3 pushing into it owns the straggler ranking and a >= 3x p99. Bounds itself to 270 s (3 runs).
fabcheck_script_test(NAME fabric_latency_tail LABEL fabric TIMEOUT 300 LOCK vfabric
                     COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/test_latency.sh)
set_tests_properties(fabric_latency_tail PROPERTIES SKIP_RETURN_CODE 77)
