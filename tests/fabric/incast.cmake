# Incast on a 6-host virtual fabric: a throttled receiver with a short queue congests the bystander (victim).
fabcheck_script_test(NAME fabric.incast.victim LABEL fabric TIMEOUT 240 LOCK vfabric
  COMMAND ${CMAKE_CURRENT_LIST_DIR}/test_incast.sh)
