# The conformance harness: every loaded layer type against its folder's plugins/*/cases.ini
# (calibrate/conformance.c).
sm_add_c_test(test_conformance test_conformance.c)
