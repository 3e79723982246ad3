# The conformance harness: every loaded layer type against its folder's plugins/*/cases.ini
# (calibrate/conformance.c), and the expected values of those files against PyTorch.
sm_add_c_test(test_conformance test_conformance.c)
# Its device mode (the GPU comparison's plumbing) with the CPU standing in for the device.
sm_add_c_test(test_conformance_device test_conformance_device.c)
# The same cases on the GPU against the CPU (ggml's test-backend-ops), where CUDA is built;
# skipped (77) without a device.
if(SCALEMETER_HAVE_CUDA)
  sm_add_c_test(test_conformance_gpu test_conformance.c)
  target_compile_definitions(test_conformance_gpu PRIVATE SM_CONFORMANCE_GPU)
  target_link_libraries(test_conformance_gpu PRIVATE scalemeter_calibrate_cuda)
  set_tests_properties(test_conformance_gpu PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600)
  if(SCALEMETER_SANITIZE) # as the GPU tests (gpu.cmake): ASan's shadow gap and CUDA
    set_tests_properties(test_conformance_gpu PROPERTIES ENVIRONMENT
      "ASAN_OPTIONS=protect_shadow_gap=0:detect_leaks=0")
  endif()
endif()
# PyTorch (Debian's python3-torchvision) for the cases' `torch =` modules; skipped without it.
find_program(SM_CONFORMANCE_PYTHON3 python3 PATHS /usr/bin NO_DEFAULT_PATH)
if(SM_CONFORMANCE_PYTHON3)
  add_test(NAME test_conformance_torch
    COMMAND ${SM_CONFORMANCE_PYTHON3} tests/test_conformance_torch.py
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
else()
  add_test(NAME test_conformance_torch COMMAND sh -c "echo 'SKIP: no /usr/bin/python3'; exit 77")
endif()
set_tests_properties(test_conformance_torch PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
# The host's price per module call and per kernel (tools/torch_host_dispatch.py): its rows and
# kernel counts, a few passes on the CPU; skipped without PyTorch.
if(SM_CONFORMANCE_PYTHON3)
  add_test(NAME tool_host_dispatch
    COMMAND ${SM_CONFORMANCE_PYTHON3} tests/test_host_dispatch.py
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(tool_host_dispatch PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
endif()
