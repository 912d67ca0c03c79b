# fabcheck overlap on a 4-host virtual fabric: MPI over TCP between namespaces, every point's overlap
# recomputed from the medians it reports, the polled variant present, findings only OVERLAP_NO_PROGRESS (warn),
# exit 0. ~10 s on the 2-core machine; bounded to 150 s.
fabcheck_script_test(NAME fabric_overlap LABEL fabric TIMEOUT 180 LOCK vfabric
                     COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/test_overlap.sh)
set_tests_properties(fabric_overlap PROPERTIES SKIP_RETURN_CODE 77)
