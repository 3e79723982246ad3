# The command-line conventions shared by every command: options, operands, "-", help CMD, -o.
add_test(NAME cli_options
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_cli_options.sh ${SCALEMETER_BIN} ${PROJECT_SOURCE_DIR})
