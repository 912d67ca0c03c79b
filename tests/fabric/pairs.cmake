# `fabcheck pairs` on a 6-host virtual fabric: clean (3 runs) -> no outliers and no suspects; one
# direction of one link throttled (with --bidir) -> exactly that bandwidth outlier and no host, bidir bounded by the
# slow direction; one host throttled -> that host, confirmed. PAIRS_CLEAN_RUNS (environment, default 3) sets the
# number of clean runs. ~95 s on the 2-core machine under other load.
fabcheck_script_test(NAME fabric_pairs LABEL fabric TIMEOUT 420 LOCK vfabric SKIP 77 SH test_pairs.sh)
