# The shipped device descriptions against their datasheets (`scalemeter devices`), and the
# loader's checks of the architecture keys (docs/devices.md).
sm_add_python_test(cli_devices test_devices_cli.py ${SCALEMETER_BIN})
add_test(NAME cli_devices_table COMMAND ${SCALEMETER_BIN} devices)
set_tests_properties(cli_devices_table PROPERTIES PASS_REGULAR_EXPRESSION
  "\nh100 +NVIDIA H100 SXM5 80 GB, DGX H100 node +66\\.9 +494\\.7 +989\\.4 +989\\.4 +1978\\.9 +79\\.6 +3350 +8 +132 +1980 ")
add_test(NAME cli_devices_bad_format COMMAND ${SCALEMETER_BIN} devices --format xml)
set_tests_properties(cli_devices_bad_format PROPERTIES WILL_FAIL ON)
