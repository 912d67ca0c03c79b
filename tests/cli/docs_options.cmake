# docs/options.md is generated from the binary (docs/gen_options.py: --list-options and every command's --help);
# this fails while the committed page differs from what the binary prints. Regenerate with
# `python3 docs/gen_options.py build/apps/fabcheck/fabcheck > docs/options.md`. No MPI (--help and --list-options only).
fabcheck_script_test(NAME docs_options LABEL unit TIMEOUT 120
  COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/docs/gen_options.py --check $<TARGET_FILE:fabcheck>
          ${PROJECT_SOURCE_DIR}/docs/options.md)
