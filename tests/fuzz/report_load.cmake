# libFuzzer run of the report loader: simdjson part by part against nlohmann's parser, 10 s from the
# checked-in corpus; shares the clang tree (build-fuzz), hence the lock. "skipped" without clang/libFuzzer.
fabcheck_script_test(NAME fuzz_report_load LABEL fuzz TIMEOUT 600 LOCK fuzz_build
                     COMMAND env FUZZ_SECONDS=10 ${PROJECT_SOURCE_DIR}/ci/fuzz report_load_fuzzer)
