sm_add_c_test(test_plugins test_plugins.c)
sm_add_c_test(test_input_counts test_input_counts.c)
