# `fabcheck pairs` on a 6-host virtual fabric (issue 6): clean -> no outliers and no suspects; one direction of one
# link throttled -> exactly that bandwidth outlier and no host; one host throttled -> that host, confirmed.
# PAIRS_CLEAN_RUNS (environment, default 1) repeats the clean run.
fabcheck_script_test(NAME fabric_pairs LABEL fabric TIMEOUT 420 LOCK vfabric
                     COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/test_pairs.sh)
set_tests_properties(fabric_pairs PROPERTIES SKIP_RETURN_CODE 77)
