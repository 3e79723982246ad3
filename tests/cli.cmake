# The command-line conventions shared by every command: options, operands, "-", help CMD, -o.
add_test(NAME cli_options
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_cli_options.sh ${SCALEMETER_BIN} ${PROJECT_SOURCE_DIR})

# srun without PMIx (its environment, no Slurm needed): one line naming `srun --mpi=pmix`
# instead of Open MPI's abort in MPI_Init (tests/calibrate.cmake has the real Slurm)
add_test(NAME cli_srun_without_pmix
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_srun_without_pmix.sh ${SCALEMETER_BIN}
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
if(SCALEMETER_SANITIZE)
  # its batch-script case runs bench under MPI, whose own allocations LeakSanitizer reports
  set_tests_properties(cli_srun_without_pmix PROPERTIES ENVIRONMENT "ASAN_OPTIONS=detect_leaks=0")
endif()

# predict is curve's one-point case: the same options give the same CSV, header and row
add_test(NAME cli_predict_curve_csv
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_predict_curve_csv.sh ${SCALEMETER_BIN}
          ${PROJECT_SOURCE_DIR})
# the --help generated from the option tables lists every option, and only those
add_test(NAME cli_option_help
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_option_help.sh ${SCALEMETER_BIN})
