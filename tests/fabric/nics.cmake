# `fabcheck nics` on a 4-host x 2-rail virtual fabric with a management network: rail-only, cross-rail,
# one slow NIC, one dead NIC, MPI on the management subnet (NICS_RUNS runs each, default 2), then nics vs pairs
# on one throttled rail. ~3 min on the 2-core machine.
fabcheck_script_test(NAME fabric_nics LABEL fabric TIMEOUT 660 LOCK vfabric SKIP 77 SH test_nics.sh)
