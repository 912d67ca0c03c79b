# `fabcheck run --html` on the 4-host virtual fabric, checked in headless Chromium. Label fabric, one at
# a time (RESOURCE_LOCK vfabric); exit 77 = skipped (no root / namespaces).
fabcheck_script_test(NAME fabric_run_html LABEL fabric fabric-functional TIMEOUT 180 LOCK vfabric SKIP 77 SH test_html_run.sh)
