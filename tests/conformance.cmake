# The conformance harness: every loaded layer type against its folder's plugins/*/cases.ini
# (calibrate/conformance.c), and the expected values of those files against PyTorch.
sm_add_c_test(test_conformance test_conformance.c)
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
