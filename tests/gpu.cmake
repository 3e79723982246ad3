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

set(SM_GPU_CLI sh ${CMAKE_CURRENT_SOURCE_DIR}/test_gpu_cli.sh)
if(SCALEMETER_HAVE_CUDA)
  set(sm_cuda_built yes)
else()
  set(sm_cuda_built no)
endif()
add_test(NAME gpu_cli_backends COMMAND ${SM_GPU_CLI} backends ${sm_cuda_built} ${SCALEMETER_BIN})
add_test(NAME gpu_cli_backends_bad_format
  COMMAND ${SM_GPU_CLI} fails "--format csv: expected one of table json" ${SCALEMETER_BIN}
          backends --format csv)
add_test(NAME gpu_cli_backends_help COMMAND ${SCALEMETER_BIN} backends --help)
set_tests_properties(gpu_cli_backends_help PROPERTIES PASS_REGULAR_EXPRESSION
  "usage: scalemeter backends \\[--format table\\|json\\]")

if(SCALEMETER_HAVE_CUDA)
  # Without a device: what the GPU parts can show anyway (kernels of every type, their host
  # parts, the executor's refusals).
  add_executable(test_gpu_host test_gpu_host.c)
  target_link_libraries(test_gpu_host PRIVATE scalemeter_calibrate m)
  add_test(NAME gpu_host COMMAND test_gpu_host WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})

  # With a device: every GPU kernel against the CPU's, zoo networks training.
  add_executable(test_gpu_executor test_gpu_executor.c)
  target_link_libraries(test_gpu_executor PRIVATE scalemeter_calibrate m)
  add_test(NAME gpu_executor COMMAND test_gpu_executor WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  add_test(NAME gpu_cli_allreduce_nccl COMMAND ${SM_GPU_CLI} nccl ${SCALEMETER_BIN})
  set_tests_properties(gpu_executor gpu_cli_allreduce_nccl PROPERTIES SKIP_RETURN_CODE 77
    TIMEOUT 900)
  # CUDA's runtime reserves address space that AddressSanitizer's shadow would overlap
  # (protect_shadow_gap); LeakSanitizer reports what the CUDA libraries and MPI never free.
  if(SCALEMETER_SANITIZE)
    set_tests_properties(gpu_host gpu_executor gpu_cli_allreduce_nccl gpu_cli_backends
      PROPERTIES ENVIRONMENT "ASAN_OPTIONS=protect_shadow_gap=0:detect_leaks=0")
  endif()
endif()
