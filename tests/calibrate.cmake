# scalemeter calibrate end to end: bench under mpirun and alone into one CSV, fit, validation.
# SM_MPIRUN_FLAGS and SM_MPI_TEST_ENV come from allreduce.cmake (included before this file).
add_test(NAME cli_calibrate_mpirun_then_single
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_calibrate_cli.sh ${SCALEMETER_BIN}
          ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${SM_MPIRUN_FLAGS}
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(cli_calibrate_mpirun_then_single PROPERTIES TIMEOUT 600 PROCESSORS 2
  ENVIRONMENT "${SM_MPI_TEST_ENV}")

# scalemeter calibrate under a real one-node Slurm started by the test (Debian's slurm-wlm and
# munge, a temporary slurm.conf): sbatch with mpirun and srun --mpi=pmix, srun without PMIx
# refused in one line. Skipped (77) where Slurm is not installed or its daemons cannot start.
add_test(NAME cli_calibrate_slurm
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_slurm.sh ${SCALEMETER_BIN} ${MPIEXEC_EXECUTABLE}
          ${SM_MPIRUN_FLAGS}
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(cli_calibrate_slurm PROPERTIES TIMEOUT 300 PROCESSORS 2
  SKIP_RETURN_CODE 77 ENVIRONMENT "${SM_MPI_TEST_ENV}")
