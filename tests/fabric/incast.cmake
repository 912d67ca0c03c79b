# Incast on a 6-host virtual fabric: a throttled receiver (200mbit) with a short queue (300 packets)
# congests the bystander (victim) >= 5x and >= 3x the largest of 3 clean runs; overlap >= 0.9; goodput <= 1.1x the
# tbf rate. Measured 14-22 s (2026-12-01, 8 of 8 runs passed, also with foreign CPU hogs); bounded to 150 s.
fabcheck_script_test(NAME fabric_incast_victim LABEL fabric TIMEOUT 180 LOCK vfabric SKIP 77 SH test_incast.sh)
