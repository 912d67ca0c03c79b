# `fabcheck report --html` offline on checked-in reports, checked in headless Chromium. No MPI: unit label.
fabcheck_script_test(NAME cli_report_html LABEL unit TIMEOUT 120 SH test_report_html.sh)
