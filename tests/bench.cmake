# Tests of the CPU executor and its kernels (calibrate/executor_cpu.c, plugins/*_cpu.c) and of
# `scalemeter bench` (cli/cmd_bench.c, calibrate/bench_step.c, bench_cpu.c, runs_writer.c).

# Backward passes of every layer type against finite differences, forward passes against
# direct loops, a training step that lowers the loss, refusals (the fake plugin has no kernels).
sm_add_c_test(test_executor test_executor.c $<TARGET_FILE:fake_plugin_good>)

# Not a test: the CPU executor's first two losses of a zoo network, and their spread across
# OpenBLAS's kernels (--kernels), from which test_gpu_executor.c's test_zoo takes its step-1
# tolerances (tests/zoo_losses.c says how to run it).
add_executable(zoo_losses zoo_losses.c)
target_link_libraries(zoo_losses PRIVATE scalemeter scalemeter_executor PkgConfig::OPENBLAS)

# The mpirun flags found for this machine live in allreduce.cmake (included before this file);
# the same list here if it is absent.
if(NOT DEFINED SM_MPIRUN_FLAGS)
  execute_process(COMMAND ${MPIEXEC_EXECUTABLE} --version OUTPUT_VARIABLE SM_BENCH_MPI_VERSION
    ERROR_QUIET)
  set(SM_MPIRUN_FLAGS ${MPIEXEC_PREFLAGS})
  if(SM_BENCH_MPI_VERSION MATCHES "Open MPI|OpenRTE")
    list(APPEND SM_MPIRUN_FLAGS --allow-run-as-root --oversubscribe --mca pml ob1
      --mca btl self,vader --mca btl_vader_single_copy_mechanism none)
  endif()
endif()
set(SM_BENCH_ENV "")
if(SCALEMETER_SANITIZE)
  set(SM_BENCH_ENV "ASAN_OPTIONS=detect_leaks=0") # Open MPI's own allocations, as allreduce.cmake
endif()

set(SM_BENCH_SH sh ${CMAKE_CURRENT_SOURCE_DIR}/test_bench_cli.sh)
# Short measurements of a network small enough for a test: 1 thread, 3 repetitions at most.
set(SM_BENCH_TINY ${SCALEMETER_BIN} bench --model examples/tiny_resnet.ini --threads 1
  --warmup 1 --reps 3 --min-time 0.01)
function(sm_bench_test name ranks)
  add_test(NAME ${name} COMMAND ${ARGN} WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(${name} PROPERTIES TIMEOUT 300 PROCESSORS ${ranks}
    ENVIRONMENT "${SM_BENCH_ENV}")
endfunction()
function(sm_mpirun out ranks)
  set(${out} ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${ranks} ${SM_MPIRUN_FLAGS} PARENT_SCOPE)
endfunction()

# The step benchmark's driver (calibrate/bench_step.c) over a fake backend with a virtual clock:
# medians of the slowest rank, buckets, the all-reduce check, a warm-up failure on one rank.
add_executable(test_bench_driver test_bench_driver.c)
target_link_libraries(test_bench_driver PRIVATE scalemeter_calibrate m)
foreach(ranks 1 2 3)
  sm_mpirun(launch ${ranks})
  sm_bench_test(test_bench_driver_np${ranks} ${ranks}
    ${launch} $<TARGET_FILE:test_bench_driver> ${MPIEXEC_POSTFLAGS})
endforeach()

# Well-formed rows, and a second run that skips them all: one rank without mpirun (2 images x
# 2 batches), then 1 to 4 ranks under mpirun (the layout: 1 node x N ranks).
sm_bench_test(cli_bench_rows_plain 1
  ${SM_BENCH_SH} rows 1 1 4 ${SM_BENCH_TINY} --image 8,16 --batch 1,2)
foreach(ranks 1 2 3 4)
  sm_mpirun(launch ${ranks})
  sm_bench_test(cli_bench_rows_np${ranks} ${ranks}
    ${SM_BENCH_SH} rows 1 ${ranks} 2 ${launch} ${SM_BENCH_TINY} --image 16 --batch 1,2
    --bucket-mib 0.01 ${MPIEXEC_POSTFLAGS})
endforeach()
# A network that ends in its loss (cross_entropy, plugin ABI 17's SM_TRAIT_LOSS), which the
# executor computes itself: GPT-2 at a sequence of 4 tokens, one repetition (about 4 s, most of
# it its 124 M weights' initialisation).
sm_bench_test(cli_bench_rows_gpt2 1
  ${SM_BENCH_SH} rows 1 1 1 ${SCALEMETER_BIN} bench --model gpt2 --threads 1 --warmup 1 --reps 1
  --min-time 0.01 --image 4 --batch 1)
sm_mpirun(launch 2)
sm_bench_test(cli_bench_rows_mpi_allreduce_np2 2
  ${SM_BENCH_SH} rows 1 2 1 ${launch} ${SM_BENCH_TINY} --image 16 --batch 2 --allreduce mpi
  ${MPIEXEC_POSTFLAGS})

# Killed with SIGKILL after its first row (the process itself; one rank of an mpirun job), then
# run again: whole rows only, every configuration exactly once. resnet18 at 32 x 32 takes long
# enough per configuration (--min-time 0.3) for the kill to land before the end.
set(SM_BENCH_SLOW ${SCALEMETER_BIN} bench --model resnet18 --image 32 --batch 1,2,3,4,5
  --threads 1 --warmup 1 --reps 3 --min-time 0.3)
sm_bench_test(cli_bench_resume_killed 1 ${SM_BENCH_SH} resume self 5 ${SM_BENCH_SLOW})
sm_bench_test(cli_bench_resume_killed_rank_np2 2
  ${SM_BENCH_SH} resume rank 5 ${launch} ${SM_BENCH_SLOW} ${MPIEXEC_POSTFLAGS})

# Interrupted (Ctrl-C, or a batch system's SIGTERM) after its first row: it says what the file
# keeps and exits 130 or 143, the file whole.
sm_bench_test(cli_bench_interrupted_int 1 ${SM_BENCH_SH} interrupt INT ${SM_BENCH_SLOW})
sm_bench_test(cli_bench_interrupted_term 1 ${SM_BENCH_SH} interrupt TERM ${SM_BENCH_SLOW})
# ... and a hang-up (an ssh session gone), which ended it without a word (the bench round)
sm_bench_test(cli_bench_interrupted_hup 1 ${SM_BENCH_SH} interrupt HUP ${SM_BENCH_SLOW})

# One writer per file: a second benchmark on a file in use is refused.
sm_bench_test(cli_bench_locked 1 ${SM_BENCH_SH} locked ${SM_BENCH_SLOW})

# Out of memory is a row (status=oom, empty times), not the end: batch 1 needs 1.2 MB, batch
# 256 182 MB, against a limit of 10 MB.
sm_bench_test(cli_bench_oom 1
  ${SM_BENCH_SH} oom 1 1 ${SM_BENCH_TINY} --image 16 --batch 1,256 --max-memory 0.01)

# User errors: one message naming the option, file or layer; a non-zero exit; the file as it was.
set(SM_BENCH_ARGS --model examples/tiny_resnet.ini --image 16 --batch 1)
foreach(case
    "no_model|which networks?|--batch;1"
    "backend|--backend tpu: expected cpu|--backend;tpu;--model;resnet18"
    "batch|--batch 0: expected an integer from 1|--model;resnet18;--batch;0"
    "image|--image '8,,16': an empty item|--model;resnet18;--image;8,,16"
    "reps|--reps 0: expected an integer from 1 to 256|--model;resnet18;--reps;0"
    "min_time|--min-time -1: expected a positive number|--model;resnet18;--min-time;-1"
    "min_time_hex|--min-time 0x1p-3: expected a positive number, in decimal|--model;resnet18;--min-time;0x1p-3"
    "bucket_hex|--bucket-mib 0x10: expected a positive number of MiB, in decimal|--model;resnet18;--bucket-mib;0x10"
    "allreduce|--allreduce tree: expected ring or mpi|--model;resnet18;--allreduce;tree"
    "unknown|unknown option '--size'|--model;resnet18;--size;4")
  string(REPLACE "|" ";" parts "${case}")
  list(GET parts 0 name)
  list(GET parts 1 message)
  list(SUBLIST parts 2 -1 args)
  sm_bench_test(cli_bench_bad_${name} 1
    ${SM_BENCH_SH} fails "${message}" ${SCALEMETER_BIN} bench ${args})
endforeach()
sm_bench_test(cli_bench_bad_missing 1
  ${SM_BENCH_SH} fails_plain "option --threads needs a value" ${SCALEMETER_BIN} bench
  --model resnet18 -o /nonexistent/runs.csv --threads)
sm_bench_test(cli_bench_bad_output 1
  ${SM_BENCH_SH} fails_plain "where to? (-o RUNS.csv" ${SCALEMETER_BIN} bench ${SM_BENCH_ARGS})
sm_bench_test(cli_bench_bad_model 1
  ${SM_BENCH_SH} fails "unknown model 'no_such_net'" ${SCALEMETER_BIN} bench
  --model resnet18,no_such_net)
sm_bench_test(cli_bench_bad_header 1
  ${SM_BENCH_SH} fails "runs.csv:1: the header differs from bench's at column 1 ('a' where"
  ${SCALEMETER_BIN} bench ${SM_BENCH_ARGS})
sm_bench_test(cli_bench_no_kernel 1
  ${SM_BENCH_SH} fails "no_kernel.ini:9: layer 'odd' of type 'test_identity' has no CPU kernel"
  ${SCALEMETER_BIN} bench --model resnet18,tests/data/bench/no_kernel.ini)
set(SM_BENCH_FAKE_ENV SCALEMETER_PLUGIN_PATH=${CMAKE_BINARY_DIR}/tests/fake_plugins/good)
list(APPEND SM_BENCH_FAKE_ENV ${SM_BENCH_ENV})
set_tests_properties(cli_bench_no_kernel PROPERTIES ENVIRONMENT "${SM_BENCH_FAKE_ENV}")
# Under mpirun: still one message per run, not one per rank.
sm_bench_test(cli_bench_bad_model_np2 2
  ${SM_BENCH_SH} fails "unknown model 'no_such_net'" ${launch} ${SCALEMETER_BIN} bench
  --model no_such_net ${MPIEXEC_POSTFLAGS})
sm_bench_test(cli_bench_bad_batch_np2 2
  ${SM_BENCH_SH} fails "--batch 0: expected" ${launch} ${SCALEMETER_BIN} bench --model resnet18
  --batch 0 ${MPIEXEC_POSTFLAGS})
# One rank started with options of its own (a wrapper script's doing): one line naming the rank
# and the argument, before anything is measured. A --batch refused on rank 1 alone ended the
# job without a word (only rank 0 speaks), another --image failed the all-reduce's check with
# sums nobody could explain, another --bucket-mib hung the job.
set(SM_BENCH_EXTRA sh ${CMAKE_CURRENT_SOURCE_DIR}/rank_extra_args.sh)
foreach(case "batch|--batch;0" "image|--image;8" "bucket|--bucket-mib;5")
  string(REPLACE "|" ";" parts "${case}")
  list(GET parts 0 name)
  list(SUBLIST parts 1 -1 extra)
  list(GET extra 0 option)
  # SM_BENCH_TINY's 10 arguments, --image 16 --batch 1, -o FILE: the extra one is the 17th
  sm_bench_test(cli_bench_rank_differs_${name} 2
    ${SM_BENCH_SH} fails "rank 1: its arguments differ from rank 0's: argument 17, '${option}'"
    ${launch} ${SM_BENCH_EXTRA} 2 ${extra} ${SM_BENCH_TINY} --image 16 --batch 1
    ${MPIEXEC_POSTFLAGS})
  set_tests_properties(cli_bench_rank_differs_${name} PROPERTIES TIMEOUT 60)
endforeach()
# ... or with the same arguments on a node whose copy of the network differs (1000 classes where
# the others have 10): its gradients of another size hung the ring all-reduce and corrupted
# the heap in MPI_Allreduce. One line naming the rank, the network and both counts.
sm_mpirun(launch 2)
foreach(impl ring mpi)
  sm_bench_test(cli_bench_rank_other_network_${impl} 2
    ${SM_BENCH_SH} fails "rank 1: examples/tiny_resnet.ini loads as 57336 weights in 26 tensors"
    ${launch} sh ${CMAKE_CURRENT_SOURCE_DIR}/rank_other_folder.sh
    ${CMAKE_CURRENT_SOURCE_DIR}/data/bench/stale-node ${SM_BENCH_TINY} --image 16 --batch 1
    --allreduce ${impl} ${MPIEXEC_POSTFLAGS})
  set_tests_properties(cli_bench_rank_other_network_${impl} PROPERTIES TIMEOUT 60)
endforeach()
add_test(NAME cli_bench_help COMMAND ${SCALEMETER_BIN} bench --help)
set_tests_properties(cli_bench_help PROPERTIES PASS_REGULAR_EXPRESSION
  "usage: scalemeter bench MODEL\\[,MODEL...\\]... -o RUNS.csv.*--min-time S.*--bucket-mib MB")

# The progress line on a terminal, and none with --quiet (test_progress_line.sh).
add_test(NAME cli_bench_progress_line
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_progress_line.sh ${SCALEMETER_BIN}
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
if(SCALEMETER_SANITIZE)
  set_tests_properties(cli_bench_progress_line PROPERTIES ENVIRONMENT "ASAN_OPTIONS=detect_leaks=0")
endif()

# bench's default thread count: cpu.max, cgroup v1 quotas and /proc/self/cgroup parsed from
# fixtures (tests/data/cgroup/), affinity masks of a node's ranks shared out
sm_add_c_test(test_cpu_budget test_cpu_budget.c)
# ... and the thread count bench chooses under taskset (and mpirun), from its CSV
add_test(NAME cli_bench_threads_affinity
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_bench_threads.sh ${SCALEMETER_BIN}
          ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${SM_MPIRUN_FLAGS}
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(cli_bench_threads_affinity PROPERTIES TIMEOUT 300 PROCESSORS 2
  SKIP_RETURN_CODE 77 ENVIRONMENT "${SM_BENCH_ENV}")

# The measurement CSV's writer on files it did not write: refused, never rows lost or repeated.
sm_add_c_test(test_runs_writer test_runs_writer.c)
target_sources(test_runs_writer PRIVATE ${PROJECT_SOURCE_DIR}/calibrate/runs_writer.c)
target_include_directories(test_runs_writer PRIVATE ${PROJECT_SOURCE_DIR}/calibrate)
