sm_add_c_test(test_plugins test_plugins.c)
