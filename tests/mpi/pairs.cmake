# `fabcheck pairs` on one host: pairs needs two hosts -> exit 2 with one error line, no report written;
# bad flags -> exit 2. 2 and 4 local ranks.
foreach(np 2 4)
  fabcheck_script_test(NAME mpi.pairs.one_host_np${np} LABEL mpi TIMEOUT 60 SH pairs_one_host.sh ${np})
endforeach()
# --all-ranks and --bidir on local ranks given distinct host names by tests/mpi/fake_hosts.sh (unshare --uts):
# one matrix set per local rank measured by the right ranks, bidir matrices present and bounded, topology.
fabcheck_script_test(NAME mpi.pairs.rails_bidir LABEL mpi TIMEOUT 120 SKIP 77 PY pairs_rails.py)
