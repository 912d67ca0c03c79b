# fabcheck step on a 4-host virtual fabric: the vfabric-demo DDP step clean and with one host
# throttled, measured and projected efficiency within the stated factor on both, the throttled step lower.
# 3 runs of each, ~60 s on the 2-core machine; bounded to 280 s.
fabcheck_script_test(NAME fabric_step LABEL fabric TIMEOUT 300 LOCK vfabric SKIP 77 SH test_step.sh)
