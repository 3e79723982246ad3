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
