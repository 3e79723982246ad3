# Command-line misuse: fit's -o - and the options it would ignore,
# bench's --warmup 0 and network lists, help help, an energy the rows cannot separate, file:line
# named once, a device given as a network file, commas in curve's paths, the baseline of scaling
# efficiency, a byte-order mark on bench's CSV, and what calibrate leaves after a failure.
sm_add_python_test(cli_misuse test_cli_misuse.py ${SCALEMETER_BIN})
# bench and calibrate start MPI, whose own allocations LeakSanitizer reports (as bench.cmake)
sm_add_python_test(cli_calibrate_failures test_calibrate_failures.py ${SCALEMETER_BIN})
if(SCALEMETER_SANITIZE AND SM_TEST_PYTHON3)
  set_tests_properties(cli_calibrate_failures PROPERTIES ENVIRONMENT "ASAN_OPTIONS=detect_leaks=0")
endif()
# split_list leaves nothing made when it fails (bench leaked a network's name)
sm_add_c_test(test_split_list test_split_list.c)
target_sources(test_split_list PRIVATE ${PROJECT_SOURCE_DIR}/cli/option_values.c
  ${PROJECT_SOURCE_DIR}/cli/output.c ${PROJECT_SOURCE_DIR}/cli/json_writer.c
  ${PROJECT_SOURCE_DIR}/cli/launcher.c)
target_include_directories(test_split_list PRIVATE ${PROJECT_SOURCE_DIR}/cli)
# descriptions and fit's outputs misused: a calibration beside a device without its precision,
# -o and --device-out as one file, Volta's TF32, memory_gib, runs' names, the capped key
sm_add_python_test(description_misuse test_description_misuse.py ${SCALEMETER_BIN})
