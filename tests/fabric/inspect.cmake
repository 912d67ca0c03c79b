# fabcheck inspect on a 3-host virtual fabric: one inventory per host, verdict no_rdma_hardware (TCP only).
fabcheck_script_test(NAME fabric_inspect_3hosts LABEL fabric TIMEOUT 150 LOCK vfabric
                     COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/test_inspect.sh)
set_tests_properties(fabric_inspect_3hosts PROPERTIES SKIP_RETURN_CODE 77)
