# fabcheck latency on a 4-host virtual fabric: clean fabric has no outlier pair; a host throttled to 20mbit
# with iperf3 pushing into it owns the straggler ranking and a >= 3x p99. Bounds itself to 270 s (3 runs).
fabcheck_script_test(NAME fabric_latency_tail LABEL fabric TIMEOUT 300 LOCK vfabric SKIP 77 SH test_latency.sh)
