# Tests of the all-reduce: our ring (calibrate/allreduce_ring.c) against exact sums and
# MPI_Allreduce, the benchmark driver, and `scalemeter allreduce`, under the real mpirun that
# find_package(MPI) found, with 1 to 4 ranks.
#
# Launcher flags, found by trying them here (Open MPI 4.1 of Debian, a container, root, 2 cores):
#   --allow-run-as-root      CI runs as root, which Open MPI refuses without it
#   --oversubscribe          3 and 4 ranks on 2 cores
#   --mca pml ob1 --mca btl self,vader
#                            shared memory only, so that no rank probes network devices
#                            (tcp, openib, ucx) that a container lacks
#   --mca btl_vader_single_copy_mechanism none
#                            vader's default single copy (CMA, process_vm_readv) needs ptrace
#                            rights that many containers deny ("Read -1, expected N, errno = 1");
#                            it works on this machine, but correctness must not depend on it
#                            (docs/allreduce.md measures with the defaults)
# Another MPI (MPICH) gets MPIEXEC_PREFLAGS only; it oversubscribes without being asked.
execute_process(COMMAND ${MPIEXEC_EXECUTABLE} --version OUTPUT_VARIABLE SM_MPIEXEC_VERSION
  ERROR_QUIET)
set(SM_MPIRUN_FLAGS ${MPIEXEC_PREFLAGS})
if(SM_MPIEXEC_VERSION MATCHES "Open MPI|OpenRTE")
  list(APPEND SM_MPIRUN_FLAGS --allow-run-as-root --oversubscribe --mca pml ob1
    --mca btl self,vader --mca btl_vader_single_copy_mechanism none)
endif()

# Under SCALEMETER_SANITIZE, LeakSanitizer reports what Open MPI itself never frees (in
# MPI_Init and its plugins); leak checking is off for the tests that start MPI, and only for them.
set(SM_MPI_TEST_ENV "")
if(SCALEMETER_SANITIZE)
  set(SM_MPI_TEST_ENV "ASAN_OPTIONS=detect_leaks=0")
endif()

# sm_add_mpi_test(NAME RANKS COMMAND...): COMMAND under mpirun with RANKS ranks.
function(sm_add_mpi_test name ranks)
  add_test(NAME ${name}
    COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${ranks} ${SM_MPIRUN_FLAGS} ${ARGN}
            ${MPIEXEC_POSTFLAGS}
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(${name} PROPERTIES TIMEOUT 300 PROCESSORS ${ranks}
    ENVIRONMENT "${SM_MPI_TEST_ENV}")
endfunction()

foreach(prog test_ring_allreduce test_allreduce_bench)
  add_executable(${prog} ${prog}.c)
  target_link_libraries(${prog} PRIVATE scalemeter_calibrate m)
endforeach()

foreach(ranks 1 2 3 4)
  sm_add_mpi_test(test_ring_allreduce_np${ranks} ${ranks} $<TARGET_FILE:test_ring_allreduce>)
endforeach()
foreach(ranks 1 3)
  sm_add_mpi_test(test_allreduce_bench_np${ranks} ${ranks} $<TARGET_FILE:test_allreduce_bench>)
endforeach()

# The sweep's CSV under mpirun -np 3: 4 B to 64 KiB is 15 sizes, times 2 implementations.
set(SM_ALLREDUCE_CLI sh ${CMAKE_CURRENT_SOURCE_DIR}/test_allreduce_cli.sh)
set(SM_SHORT_SWEEP --iters 3 --warmup 1 --format csv)
add_test(NAME cli_allreduce_csv_np3
  COMMAND ${SM_ALLREDUCE_CLI} csv 3 30
          ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 3 ${SM_MPIRUN_FLAGS} ${SCALEMETER_BIN}
          allreduce --min-bytes 4 --max-bytes 64K ${SM_SHORT_SWEEP} ${MPIEXEC_POSTFLAGS})
# Without mpirun the command is a 1-rank run; one implementation, 1 KiB to 8 KiB: 4 rows.
add_test(NAME cli_allreduce_csv_plain
  COMMAND ${SM_ALLREDUCE_CLI} csv 1 4 ${SCALEMETER_BIN} allreduce --impl ring
          --min-bytes 1K --max-bytes 8KiB ${SM_SHORT_SWEEP})
add_test(NAME cli_allreduce_json
  COMMAND ${SCALEMETER_BIN} allreduce --impl mpi --min-bytes 64 --max-bytes 128 --iters 2
          --format json)
add_test(NAME cli_allreduce_help COMMAND ${SCALEMETER_BIN} allreduce --help)
set_tests_properties(cli_allreduce_csv_np3 cli_allreduce_csv_plain cli_allreduce_json
  PROPERTIES TIMEOUT 300 ENVIRONMENT "${SM_MPI_TEST_ENV}")
set_tests_properties(cli_allreduce_csv_np3 PROPERTIES PROCESSORS 3)
set_tests_properties(cli_allreduce_json PROPERTIES PASS_REGULAR_EXPRESSION
  "^\\{\"ranks\": 1, \"nodes\": 1, \"iters\": 2, \"warmup\": 5, [^\n]*, \"results\": \\[\n  \\{\"bytes\": 64, \"impl\": \"mpi\", \"ranks\": 1, \"time_s\": [0-9.e+-]+, \"algbw_gb_s\": null, \"busbw_gb_s\": null, \"checked\": true\\},\n  \\{\"bytes\": 128, [^\n]*\\}\n\\]\\}\n$")
set_tests_properties(cli_allreduce_help PROPERTIES PASS_REGULAR_EXPRESSION
  "usage: mpirun -np N scalemeter allreduce.*--impl NAME .*ring .*mpi ")

# User errors: a non-zero exit and one line naming the option, before MPI starts.
foreach(case
    "min_bytes_odd|--min-bytes 6: expected a multiple of 4|--min-bytes;6"
    "max_bytes_suffix|--max-bytes 3X: expected|--max-bytes;3X"
    "bytes_order|--min-bytes 2048 is larger than --max-bytes 1024|--min-bytes;2K;--max-bytes;1K"
    "impl|--impl nccl: expected ring, mpi, or all|--impl;nccl"
    "iters|--iters 0: expected an integer from 1|--iters;0"
    "warmup|--warmup -1: expected an integer from 0|--warmup=-1"
    "format|--format xml: expected table, csv or json|--format;xml"
    "missing|option --chunk-bytes needs a value|--chunk-bytes"
    "unknown|unknown option '--size'|--size;4")
  string(REPLACE "|" ";" parts "${case}")
  list(GET parts 0 name)
  list(GET parts 1 message)
  list(SUBLIST parts 2 -1 args)
  add_test(NAME cli_allreduce_bad_${name}
    COMMAND ${SM_ALLREDUCE_CLI} fails "${message}" ${SCALEMETER_BIN} allreduce ${args})
endforeach()
# Under mpirun: still one message, from rank 0 only.
add_test(NAME cli_allreduce_bad_iters_np2
  COMMAND ${SM_ALLREDUCE_CLI} fails "--iters 0: expected" ${MPIEXEC_EXECUTABLE}
          ${MPIEXEC_NUMPROC_FLAG} 2 ${SM_MPIRUN_FLAGS} ${SCALEMETER_BIN} allreduce --iters 0
          ${MPIEXEC_POSTFLAGS})
set_tests_properties(cli_allreduce_bad_iters_np2 PROPERTIES TIMEOUT 120)
# Rank 1 started with another --max-bytes (tests/rank_extra_args.sh; bench.cmake has more):
# one line naming the rank and the argument, where its sweep of other sizes was left to
# the collectives to sort out.
add_test(NAME cli_allreduce_rank_differs
  COMMAND ${SM_ALLREDUCE_CLI} fails
          "rank 1: its arguments differ from rank 0's: argument 3, '--max-bytes', is one more"
          ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 2 ${SM_MPIRUN_FLAGS}
          sh ${CMAKE_CURRENT_SOURCE_DIR}/rank_extra_args.sh 2 --max-bytes 2K
          ${SCALEMETER_BIN} allreduce --max-bytes 1K ${MPIEXEC_POSTFLAGS})
set_tests_properties(cli_allreduce_rank_differs PROPERTIES TIMEOUT 60)

# fit-comm: link parameters recovered from nccl-tests output and allreduce CSVs; allreduce
# --device: predicted bus bandwidths against nccl-tests figures measured on H100 and A100 nodes
# (published in NVIDIA's issue trackers), NCCL's choice by size, option conflicts
# (docs/scaling.md)
foreach(script fit_comm allreduce_predicted)
  sm_add_python_test(cli_${script} test_${script}_cli.py ${SCALEMETER_BIN})
endforeach()
