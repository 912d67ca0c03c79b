# fabcheck run + configs/acceptance/vfabric.json on a 4-host virtual fabric: every section filled, the gate
# passes clean (exit 0) and fails with one host at 100mbit (exit 1, the failing checks named). ~60 s; bounds itself
# to 200 s.
fabcheck_script_test(NAME fabric_run_acceptance LABEL fabric TIMEOUT 320 LOCK vfabric
                     COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/test_run_acceptance.sh)
set_tests_properties(fabric_run_acceptance PROPERTIES SKIP_RETURN_CODE 77)
# The watchdog: a data link pulled during the sweep and during pairs ends the job with exit 3 within
# --timeout + the abort grace, the report naming the unreachable host. ~60 s; bounds itself to 200 s.
fabcheck_script_test(NAME fabric_watchdog_link_down LABEL fabric TIMEOUT 240 LOCK vfabric
                     COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/test_watchdog_link_down.sh)
set_tests_properties(fabric_watchdog_link_down PROPERTIES SKIP_RETURN_CODE 77)
# The first screen with the embedded default config: clean -> exit 0 and quiet; one host throttled -> exit 1,
# that host named first and left out of the good-hosts file; one link direction throttled -> exit 1, that link named
# first, no host blamed. Three default runs; bounds itself to 800 s.
fabcheck_script_test(NAME fabric_first_screen LABEL fabric TIMEOUT 840 LOCK vfabric
                     COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/test_first_screen.sh)
set_tests_properties(fabric_first_screen PROPERTIES SKIP_RETURN_CODE 77)
