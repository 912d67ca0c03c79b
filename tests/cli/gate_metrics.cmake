# `fabcheck gate --list-metrics` and the units on the gate's lines (one metric catalogue). Offline and
# fast, so it runs with the unit label.
fabcheck_script_test(NAME cli_gate_metrics LABEL unit TIMEOUT 60 SH gate_metrics.sh)
