# libFuzzer run of the NCCL log reader (30 s from the checked-in corpus); builds its own clang tree (build-fuzz)
# and prints "skipped" when clang/libFuzzer is absent.
fabcheck_script_test(NAME fuzz_nccl_log LABEL fuzz TIMEOUT 900 LOCK fuzz_build COMMAND ${PROJECT_SOURCE_DIR}/ci/fuzz)
