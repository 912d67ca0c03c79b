# Scaling score on the 4-host virtual fabric: clean vfabric-demo score in [0.2, 0.9]; with one host
# throttled the score falls below 0.8x the clean one. Label fabric, one at a time (RESOURCE_LOCK vfabric), exit 77 =
# skipped (no root / namespaces).
fabcheck_script_test(NAME fabric_scaling_score LABEL fabric TIMEOUT 300 LOCK vfabric SKIP 77 SH test_scaling.sh)
