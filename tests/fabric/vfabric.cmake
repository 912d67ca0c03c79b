# Virtual-fabric tests (DESIGN §8, tests/fabric/vfabric): label `fabric`, one at a time (RESOURCE_LOCK vfabric),
# each bounded by its own timeout below the ctest TIMEOUT so that its cleanup trap always runs. Exit 77 = skipped
# (not root, or no network namespaces on this machine).
foreach(_vf_test teardown throttle_link link_down)
  fabcheck_script_test(NAME fabric_vfabric_${_vf_test} LABEL fabric fabric-functional TIMEOUT 150 LOCK vfabric SKIP 77
                       SH test_${_vf_test}.sh)
endforeach()
# End to end: fabcheck sweep on 4 hosts, clean and with one host at 100mbit (bounds itself to 230 s).
fabcheck_script_test(NAME fabric_vfabric_sweep_e2e LABEL fabric fabric-functional TIMEOUT 260 LOCK vfabric SKIP 77 SH test_sweep_e2e.sh)
