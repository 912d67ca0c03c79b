# libFuzzer runs of the perftest / OSU / IMB importers, 10 s each from the checked-in corpora
# (tests/data/fuzz-corpus/<format>); they share the clang tree (build-fuzz), hence the lock. "skipped"
# without clang/libFuzzer.
foreach(fmt perftest_text perftest_json osu_text imb_text)
  fabcheck_script_test(NAME fuzz_${fmt} LABEL fuzz TIMEOUT 600 LOCK fuzz_build
                       COMMAND env FUZZ_SECONDS=10 ${PROJECT_SOURCE_DIR}/ci/fuzz ${fmt}_fuzzer)
endforeach()
