# libFuzzer runs of the nccl-tests importers (text and -J JSON), 20 s each from the checked-in corpora; they
# share the clang tree (build-fuzz) with the NCCL-log fuzzer, hence the lock. "skipped" without clang/libFuzzer.
foreach(kind text json)
  fabcheck_script_test(NAME fuzz_nccl_tests_${kind} LABEL fuzz TIMEOUT 600 LOCK fuzz_build
                       COMMAND env FUZZ_SECONDS=10 ${PROJECT_SOURCE_DIR}/ci/fuzz nccl_tests_${kind}_fuzzer)
endforeach()
