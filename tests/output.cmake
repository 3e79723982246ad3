# The output plumbing of the commands (cli/output.c, cli/json_writer.c): the JSON writer on
# its own, and every command's --format json parsed as strict JSON.
add_executable(test_json_writer test_json_writer.c ${PROJECT_SOURCE_DIR}/cli/json_writer.c)
target_include_directories(test_json_writer PRIVATE ${PROJECT_SOURCE_DIR}/cli)
target_link_libraries(test_json_writer PRIVATE m)
add_test(NAME json_writer COMMAND test_json_writer)

sm_add_python_test(cli_json_outputs test_json_outputs.py ${SCALEMETER_BIN} ${PROJECT_SOURCE_DIR})
# its measured all-reduce starts MPI, whose own allocations LeakSanitizer reports (as bench.cmake)
if(SCALEMETER_SANITIZE AND SM_TEST_PYTHON3)
  set_tests_properties(cli_json_outputs PROPERTIES ENVIRONMENT "ASAN_OPTIONS=detect_leaks=0")
endif()
# one unit a table column of times (curve's t_epoch from minutes down to seconds)
sm_add_python_test(cli_table_units test_table_units.py ${SCALEMETER_BIN})
