# scalemeter calibrate end to end: bench under mpirun and alone into one CSV, fit, validation.
# SM_MPIRUN_FLAGS and SM_MPI_TEST_ENV come from allreduce.cmake (included before this file).
add_test(NAME cli_calibrate_mpirun_then_single
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_calibrate_cli.sh ${SCALEMETER_BIN}
          ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${SM_MPIRUN_FLAGS}
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(cli_calibrate_mpirun_then_single PROPERTIES TIMEOUT 600 PROCESSORS 2
  ENVIRONMENT "${SM_MPI_TEST_ENV}")
