# `fabcheck import`: nccl-tests text/JSON → report → `fabcheck gate`; bad input refused (exit 2, one
# stderr line, nothing written). Offline and fast, so it runs with the unit label.
fabcheck_script_test(NAME cli_import_gate LABEL unit TIMEOUT 60 SH import.sh)
# perftest / OSU / IMB outputs: per-link gate, compare, error findings, refusals.
fabcheck_script_test(NAME cli_import_peers LABEL unit TIMEOUT 60 SH import_peers.sh)
