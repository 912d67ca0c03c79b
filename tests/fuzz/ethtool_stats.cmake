# libFuzzer run of the `ethtool -S` reader, 10 s from tests/data/fuzz-corpus/ethtool-stats (the
# recorded counter fixtures' files); shares the clang tree (build-fuzz), hence the lock. "skipped" without
# clang/libFuzzer.
fabcheck_script_test(NAME fuzz_ethtool_stats LABEL fuzz TIMEOUT 600 LOCK fuzz_build
                     COMMAND env FUZZ_SECONDS=10 ${PROJECT_SOURCE_DIR}/ci/fuzz ethtool_stats_fuzzer)
