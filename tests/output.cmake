# The output plumbing of the commands (cli/output.c, cli/json_writer.c): the JSON writer on
# its own, and every command's --format json parsed as strict JSON.
add_executable(test_json_writer test_json_writer.c ${PROJECT_SOURCE_DIR}/cli/json_writer.c)
target_include_directories(test_json_writer PRIVATE ${PROJECT_SOURCE_DIR}/cli)
target_link_libraries(test_json_writer PRIVATE m)
add_test(NAME json_writer COMMAND test_json_writer)

find_program(SM_OUTPUT_PYTHON3 python3)
if(SM_OUTPUT_PYTHON3)
  add_test(NAME cli_json_outputs COMMAND ${SM_OUTPUT_PYTHON3}
           ${CMAKE_CURRENT_SOURCE_DIR}/test_json_outputs.py ${SCALEMETER_BIN} ${PROJECT_SOURCE_DIR}
           WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
endif()
# one unit a table column of times (curve's t_epoch from minutes down to seconds)
if(SM_OUTPUT_PYTHON3)
  add_test(NAME cli_table_units COMMAND ${SM_OUTPUT_PYTHON3}
           ${CMAKE_CURRENT_SOURCE_DIR}/test_table_units.py ${SCALEMETER_BIN}
           WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
endif()
