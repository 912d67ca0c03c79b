# fabcheck inspect on a 3-host virtual fabric: one inventory per host, verdict no_rdma_hardware (TCP only).
fabcheck_script_test(NAME fabric_inspect_3hosts LABEL fabric fabric-functional TIMEOUT 150 LOCK vfabric SKIP 77 SH test_inspect.sh)
