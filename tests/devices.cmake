# The shipped device descriptions against their datasheets (`scalemeter devices`), and the
# loader's checks of the architecture keys (docs/devices.md).
find_program(SM_DEVICES_PYTHON3 python3)
if(SM_DEVICES_PYTHON3)
  add_test(NAME cli_devices COMMAND ${SM_DEVICES_PYTHON3}
           ${CMAKE_CURRENT_SOURCE_DIR}/test_devices_cli.py ${SCALEMETER_BIN})
endif()
add_test(NAME cli_devices_table COMMAND ${SCALEMETER_BIN} devices)
set_tests_properties(cli_devices_table PROPERTIES PASS_REGULAR_EXPRESSION
  "\nh100 +NVIDIA H100 SXM5 80 GB, DGX H100 node +66\\.9 +494\\.7 +989\\.4 +989\\.4 +79\\.6 +3350 +8 +132 +1980 ")
add_test(NAME cli_devices_bad_format COMMAND ${SCALEMETER_BIN} devices --format xml)
set_tests_properties(cli_devices_bad_format PROPERTIES WILL_FAIL ON)
