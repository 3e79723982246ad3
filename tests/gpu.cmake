# Tests of the GPU backend (docs/gpu.md): the plugins' GPU kernels and the GPU executor
# (calibrate/executor_cuda.c), the energy meter (calibrate/nvml_energy.c), NCCL and the
# commands. Those that need a device print "no CUDA device: skipped" and exit 77 where none is
# visible, which ctest reports as skipped, never as passed.

# The energy meter needs no CUDA to build or test: a fake NVML stands in for the driver's.
add_library(fake_nvml SHARED fake_nvml.c)
set_target_properties(fake_nvml PROPERTIES C_VISIBILITY_PRESET hidden)
add_executable(test_nvml_energy test_nvml_energy.c)
target_link_libraries(test_nvml_energy PRIVATE scalemeter_calibrate)
add_test(NAME gpu_nvml_energy COMMAND test_nvml_energy $<TARGET_FILE:fake_nvml>)

# Which GPU a rank takes (calibrate/gpu_choice.c), decided from fixture views of a host's
# ranks: needs no CUDA either.
add_executable(test_gpu_choice test_gpu_choice.c)
target_link_libraries(test_gpu_choice PRIVATE scalemeter_calibrate)
add_test(NAME gpu_device_choice COMMAND test_gpu_choice)

set(SM_GPU_CLI sh ${CMAKE_CURRENT_SOURCE_DIR}/test_gpu_cli.sh)
if(SCALEMETER_HAVE_CUDA)
  set(sm_cuda_built yes)
else()
  set(sm_cuda_built no)
endif()
add_test(NAME gpu_cli_backends COMMAND ${SM_GPU_CLI} backends ${sm_cuda_built} ${SCALEMETER_BIN})
add_test(NAME gpu_cli_backends_bad_format
  COMMAND ${SM_GPU_CLI} fails "--format svg: expected one of table csv json" ${SCALEMETER_BIN}
          backends --format svg)
add_test(NAME gpu_cli_backends_help COMMAND ${SCALEMETER_BIN} backends --help)
set_tests_properties(gpu_cli_backends_help PROPERTIES PASS_REGULAR_EXPRESSION
  "usage: scalemeter backends \\[--format table\\|csv\\|json\\]")

# `bench --backend cuda`: its refusals, before any device is needed (test_bench_cli.sh leaves
# the file it is given as it was).
set(SM_GPU_BENCH_SH sh ${CMAKE_CURRENT_SOURCE_DIR}/test_bench_cli.sh fails)
if(SCALEMETER_HAVE_CUDA)
  foreach(case
      "precision_value|--precision fp64: expected fp32, tf32, fp16 or bf16|--model;resnet18;--backend;cuda;--precision;fp64"
      "precision_cpu|--precision: only with --backend cuda|--model;resnet18;--precision;tf32"
      "conv_algo|--conv-algo fastest: expected measure or heuristic|--model;resnet18;--backend;cuda;--conv-algo;fastest"
      "allreduce|--allreduce: with --backend cuda the gradients go through NCCL|--model;resnet18;--backend;cuda;--allreduce;ring"
      "no_kernel|no_kernel.ini:9: layer 'odd' of type 'test_identity' has no GPU kernel|--backend;cuda;--model;resnet18,tests/data/bench/no_kernel.ini")
    string(REPLACE "|" ";" parts "${case}")
    list(GET parts 0 name)
    list(GET parts 1 message)
    list(SUBLIST parts 2 -1 args)
    add_test(NAME gpu_cli_bench_bad_${name}
      COMMAND ${SM_GPU_BENCH_SH} "${message}" ${SCALEMETER_BIN} bench ${args}
      WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  endforeach()
  # every layer type of ours has GPU kernels: the type without any is the fake plugin's
  set_tests_properties(gpu_cli_bench_bad_no_kernel PROPERTIES ENVIRONMENT
    SCALEMETER_PLUGIN_PATH=${CMAKE_BINARY_DIR}/tests/fake_plugins/good)
else()
  add_test(NAME gpu_cli_bench_not_built
    COMMAND ${SM_GPU_BENCH_SH} "--backend cuda: expected cpu (the GPU backend is not built"
            ${SCALEMETER_BIN} bench --model resnet18 --backend cuda)
endif()

if(SCALEMETER_HAVE_CUDA)
  # The counting and predicting commands of this build with every CUDA library hidden: the
  # program links none (the backend modules do), and they run without them (issue 34).
  add_test(NAME gpu_cli_without_cuda_libs
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_without_cuda_libs.sh ${CMAKE_BINARY_DIR}
            ${PROJECT_SOURCE_DIR})

  # Without a device: what the GPU parts can show anyway (kernels of every type, their host
  # parts, the executor's refusals).
  add_executable(test_gpu_host test_gpu_host.c)
  target_link_libraries(test_gpu_host PRIVATE scalemeter_calibrate_cuda m)
  add_test(NAME gpu_host COMMAND test_gpu_host WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(gpu_host PROPERTIES ENVIRONMENT
    SCALEMETER_PLUGIN_PATH=${CMAKE_BINARY_DIR}/tests/fake_plugins/good)

  # The plugins' precision policy, a table read on the host: no device needed.
  add_executable(test_gpu_precision test_gpu_precision.c)
  target_include_directories(test_gpu_precision PRIVATE ${PROJECT_SOURCE_DIR}/core/include
    ${PROJECT_SOURCE_DIR}/plugins/common)
  target_link_libraries(test_gpu_precision PRIVATE CUDA::cudart CUDA::cublas sm_cudnn)
  add_test(NAME gpu_precision COMMAND test_gpu_precision)

  # With a device: every GPU kernel against the CPU's, zoo networks training.
  add_executable(test_gpu_executor test_gpu_executor.c)
  target_link_libraries(test_gpu_executor PRIVATE scalemeter_calibrate_cuda m)
  add_test(NAME gpu_executor COMMAND test_gpu_executor WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  add_test(NAME gpu_cli_allreduce_nccl COMMAND ${SM_GPU_CLI} nccl ${SCALEMETER_BIN})
  set_tests_properties(gpu_executor gpu_cli_allreduce_nccl PROPERTIES SKIP_RETURN_CODE 77
    TIMEOUT 900)
  # bench on 1 and 2 ranks: rows where that many GPUs are visible, else the refusal (no device,
  # or more ranks than GPUs), one message from the whole job.
  add_test(NAME gpu_cli_bench COMMAND ${SM_GPU_CLI} bench 1 ${SCALEMETER_BIN}
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  add_test(NAME gpu_cli_bench_np2
    COMMAND ${SM_GPU_CLI} bench 2 ${SCALEMETER_BIN} ${MPIEXEC_EXECUTABLE}
            ${MPIEXEC_NUMPROC_FLAG} 2 ${SM_MPIRUN_FLAGS}
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(gpu_cli_bench gpu_cli_bench_np2 PROPERTIES TIMEOUT 600 PROCESSORS 2
    ENVIRONMENT "ASAN_OPTIONS=protect_shadow_gap=0:detect_leaks=0")
  # bench --backend cuda at fp16 and bf16: rows that name their precision.
  add_test(NAME gpu_cli_bench_precisions COMMAND ${SM_GPU_CLI} precisions ${SCALEMETER_BIN}
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(gpu_cli_bench_precisions PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600)
  # a GPU module whose forward faults on the host under bench (hostile.cmake's
  # kernel_crashes_gpu): the kernel and plugin named
  add_test(NAME gpu_cli_bench_kernel_crash
    COMMAND ${SM_GPU_CLI} kernel_crash ${SCALEMETER_BIN} ${CMAKE_BINARY_DIR}/tests/hostile
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(gpu_cli_bench_kernel_crash PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300
    ENVIRONMENT "ASAN_OPTIONS=protect_shadow_gap=0:detect_leaks=0")
  # calibrate --backend cuda: the CSV, the coefficient file naming the GPU, the validation.
  add_test(NAME gpu_cli_calibrate COMMAND ${SM_GPU_CLI} calibrate ${SCALEMETER_BIN}
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(gpu_cli_calibrate PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 900
    ENVIRONMENT "ASAN_OPTIONS=protect_shadow_gap=0:detect_leaks=0")
  # CUDA's runtime reserves address space that AddressSanitizer's shadow would overlap
  # (protect_shadow_gap); LeakSanitizer reports what the CUDA libraries and MPI never free.
  if(SCALEMETER_SANITIZE)
    set(sm_gpu_asan "ASAN_OPTIONS=protect_shadow_gap=0:detect_leaks=0")
    set_tests_properties(gpu_executor gpu_cli_allreduce_nccl gpu_cli_backends
      gpu_cli_bench_precisions PROPERTIES ENVIRONMENT "${sm_gpu_asan}")
    foreach(case precision_value precision_cpu conv_algo allreduce)
      set_tests_properties(gpu_cli_bench_bad_${case} PROPERTIES ENVIRONMENT "${sm_gpu_asan}")
    endforeach()
    # these two also need the fake plugin's type without kernels
    set_tests_properties(gpu_host gpu_cli_bench_bad_no_kernel PROPERTIES ENVIRONMENT
      "${sm_gpu_asan};SCALEMETER_PLUGIN_PATH=${CMAKE_BINARY_DIR}/tests/fake_plugins/good")
  endif()
endif()

# The BERT of tools/torch_layer_profile.py against run_squad.py's logged parameters and
# modeling.py's attention (Debian's python3-torchvision; skipped without it).
find_program(SM_TORCH_PYTHON3 python3 PATHS /usr/bin NO_DEFAULT_PATH)
if(SM_TORCH_PYTHON3)
  add_test(NAME tool_torch_bert_models COMMAND ${SM_TORCH_PYTHON3} tests/test_torch_bert_models.py
           WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
else()
  add_test(NAME tool_torch_bert_models COMMAND sh -c "echo 'SKIP: no /usr/bin/python3'; exit 77")
endif()
set_tests_properties(tool_torch_bert_models PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
