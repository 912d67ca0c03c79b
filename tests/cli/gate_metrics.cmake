# `fabcheck gate --list-metrics` and the units on the gate's lines (one metric catalogue). Offline and
# fast, so it runs with the unit label.
fabcheck_script_test(NAME cli_gate_metrics LABEL unit TIMEOUT 60
                     COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/gate_metrics.sh)
