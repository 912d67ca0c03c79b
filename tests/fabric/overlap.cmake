# fabcheck overlap on a 4-host virtual fabric: MPI over TCP between namespaces, every point's overlap
# recomputed from the medians it reports, the polled variant present, findings only OVERLAP_NO_PROGRESS (warn),
# exit 0. ~10 s on the 2-core machine; bounded to 150 s.
fabcheck_script_test(NAME fabric_overlap LABEL fabric fabric-functional TIMEOUT 180 LOCK vfabric SKIP 77 SH test_overlap.sh)
