# `fabcheck compare` on the 4-host virtual fabric: clean vs clean (two runs per side) flags <= 5 % of
# metrics, clean vs one host throttled flags every busBw point >= 1 MiB as worse. Label fabric, one at a time (RESOURCE_LOCK vfabric),
# exit 77 = skipped (no root / namespaces); bounds itself below the ctest TIMEOUT.
fabcheck_script_test(NAME fabric_compare LABEL fabric TIMEOUT 260 LOCK vfabric SKIP 77 SH test_compare.sh)
