# Hostile inputs (issue 40, items 9-15): plugins that crash or lie (tests/hostile_plugin.c),
# damaged dynamic sections, FIFOs and devices where files are expected, world-writable plugin
# folders, relative and repeated SCALEMETER_PLUGIN_PATH entries, a symbolic link planted at
# the atomic writer's temporary name.
foreach(kind ndim params pointer data_entry crash infer_noterm metrics_noterm saved_noterm
        cpu_pointer negative_io negative_tensors fail_null prints exits saved_huge saved_input
        unknown_traits huge_weights metrics_crash macs tensorless aborts divides recurses
        writes_input spins view_strides partial_size output_elems alias_grows selective
        activation old_traits long_name group_channels fused_activation fused_norm fused_residual
        sets_locale prints_late quick_exits name_190 name_191 heap_name long_summary new_trait
        pooling_weights pooling_matmul norm_rows_batch norm_rows_huge loss_trait loss_weights
        broadcast_passes elementwise_trait view_copies bias_grads
        bias_sums ctor_spins overruns conv_no_matmul residual_one activation_two view_flops
        macs_no_matmul matmul_no_macs infer_nomsg metrics_nomsg saved_nomsg shape_negative
        kept_negative old_kept linear_elems old_linear)
  string(TOUPPER ${kind} upper)
  sm_test_module(hostile_${kind} hostile_plugin.c hostile/${kind} ${kind} HIDDEN
    HOSTILE_${upper} HOSTILE_NAME="test_hostile_${kind}")
endforeach()
sm_add_c_test(test_hostile_plugins test_hostile_plugins.c
  $<TARGET_FILE:fake_plugin_good> $<TARGET_FILE:hostile_ndim> $<TARGET_FILE:hostile_params>
  $<TARGET_FILE:hostile_pointer> $<TARGET_FILE:hostile_data_entry> ${CMAKE_BINARY_DIR}/tests/hostile)
add_dependencies(test_hostile_plugins fake_plugin_good hostile_ndim hostile_params
  hostile_pointer hostile_data_entry hostile_infer_noterm hostile_metrics_noterm
  hostile_saved_noterm hostile_cpu_pointer hostile_negative_io hostile_negative_tensors
  hostile_fail_null hostile_macs hostile_tensorless hostile_writes_input hostile_view_strides
  hostile_partial_size hostile_output_elems hostile_alias_grows hostile_selective
  hostile_activation hostile_old_traits hostile_long_name hostile_group_channels
  hostile_fused_activation
  hostile_fused_norm hostile_fused_residual hostile_name_190 hostile_name_191 hostile_heap_name
  hostile_long_summary hostile_new_trait hostile_pooling_weights hostile_pooling_matmul
  hostile_norm_rows_batch hostile_norm_rows_huge hostile_loss_trait hostile_loss_weights
  hostile_broadcast_passes hostile_elementwise_trait hostile_view_copies
  hostile_bias_grads hostile_bias_sums hostile_conv_no_matmul hostile_residual_one
  hostile_activation_two hostile_view_flops hostile_macs_no_matmul hostile_matmul_no_macs
  hostile_infer_nomsg hostile_metrics_nomsg hostile_saved_nomsg hostile_shape_negative
  hostile_kept_negative hostile_old_kept hostile_linear_elems hostile_old_linear)
# shadow.so provides conv2d, which the shipped conv2d.so provides too
sm_test_module(hostile_shadow hostile_plugin.c hostile/shadow shadow HIDDEN HOSTILE_SHADOW
  HOSTILE_NAME="conv2d")
# kernel_exits.so, whose CPU companion's forward kernel calls exit(0) while bench measures
sm_test_module(hostile_kernel_exits fake_plugin.c hostile/kernel_exits kernel_exits
  TEST_TYPE_NAME="test_kernel_exits")
sm_test_module(hostile_kernel_exits_cpu fake_cpu_module.c hostile/kernel_exits kernel_exits_cpu
  HIDDEN TEST_EXIT_IN_FORWARD)
# kernel_crashes.so, whose CPU companion's forward kernel faults while check-plugin runs it
sm_test_module(hostile_kernel_crashes fake_plugin.c hostile/kernel_crashes kernel_crashes
  TEST_TYPE_NAME="test_kernel_crashes")
sm_test_module(hostile_kernel_crashes_cpu fake_cpu_module.c hostile/kernel_crashes
  kernel_crashes_cpu HIDDEN TEST_CRASH_IN_FORWARD)
# and its GPU companion's forward, on the host, while bench --backend cuda measures (a device
# machine's test: tests/test_gpu_cli.sh kernel_crash)
sm_test_module(hostile_kernel_crashes_gpu fake_gpu_module.c hostile/kernel_crashes
  kernel_crashes_gpu HIDDEN TEST_CRASH_IN_FORWARD)
# Kernel tables that lack forward or are too small, or point at 0x30: each loaded, and the CPU
# executor then said the descriptor "sets no cpu table, and there is no X_cpu.so"
sm_test_module(hostile_own_cpu_small fake_plugin.c hostile/own_cpu_small own_cpu_small
  TEST_TYPE_NAME="test_own_cpu_small" TEST_OWN_CPU TEST_OWN_CPU_SMALL)
sm_test_module(hostile_own_cpu_no_forward fake_plugin.c hostile/own_cpu_no_forward
  own_cpu_no_forward TEST_TYPE_NAME="test_own_cpu_no_forward" TEST_OWN_CPU TEST_OWN_CPU_NO_FORWARD)
sm_test_module(hostile_cpu_no_forward fake_plugin.c hostile/cpu_no_forward cpu_no_forward
  TEST_TYPE_NAME="test_cpu_no_forward")
sm_test_module(hostile_cpu_no_forward_cpu fake_cpu_module.c hostile/cpu_no_forward
  cpu_no_forward_cpu HIDDEN TEST_NO_FORWARD)
sm_test_module(hostile_gpu_no_forward fake_plugin.c hostile/gpu_no_forward gpu_no_forward
  TEST_TYPE_NAME="test_gpu_no_forward")
sm_test_module(hostile_gpu_no_forward_gpu fake_gpu_module.c hostile/gpu_no_forward
  gpu_no_forward_gpu HIDDEN TEST_NO_FORWARD)
sm_test_module(hostile_gpu_stray fake_plugin.c hostile/gpu_stray gpu_stray
  TEST_TYPE_NAME="test_gpu_stray")
sm_test_module(hostile_gpu_stray_gpu fake_gpu_module.c hostile/gpu_stray gpu_stray_gpu HIDDEN
  TEST_STRAY_SETUP)
add_dependencies(test_hostile_plugins hostile_own_cpu_small hostile_own_cpu_no_forward
  hostile_cpu_no_forward hostile_cpu_no_forward_cpu hostile_gpu_no_forward
  hostile_gpu_no_forward_gpu hostile_gpu_stray hostile_gpu_stray_gpu)
# A plugin that prints, exits, or provides a shipped type under another file name, as a user's
# plugin in SCALEMETER_PLUGIN_PATH: the command's output stays clean, an exit fails naming the
# plugin, and the shadowed type is the duplicate error whichever type a network asks for first.
sm_add_python_test(hostile_plugin_host test_hostile_plugin_host.py ${SCALEMETER_BIN}
  ${CMAKE_BINARY_DIR}/tests/hostile ${CMAKE_BINARY_DIR}/tests/locale)
if(TARGET hostile_sets_locale AND SM_TEST_PYTHON3)
  # sets_locale.so takes the environment's locale: de_DE, built by core.cmake's fixture
  set_tests_properties(hostile_plugin_host PROPERTIES FIXTURES_REQUIRED locale_de_DE)
endif()
# spins.so loops forever inside metrics: the command ends at SCALEMETER_PLUGIN_TIMEOUT (1 s
# there); a hang ends at this limit instead
set_tests_properties(hostile_plugin_host PROPERTIES TIMEOUT 120)

# a FIFO must be refused, not waited on: a hang ends at this limit
set_tests_properties(test_hostile_plugins PROPERTIES TIMEOUT 60)

add_test(NAME cli_hostile_inputs
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_hostile_cli.sh ${SCALEMETER_BIN}
          $<TARGET_FILE:hostile_crash> ${PROJECT_SOURCE_DIR})
set_tests_properties(cli_hostile_inputs PROPERTIES TIMEOUT 120)
if(SCALEMETER_SANITIZE)
  # bench maps Open MPI, whose own allocations LeakSanitizer reports (as bench.cmake)
  set_tests_properties(cli_hostile_inputs PROPERTIES ENVIRONMENT "ASAN_OPTIONS=detect_leaks=0")
endif()

# Damaged files of every format, the second campaign: NUL bytes, CR-only line ends, long
# section names, unterminated headers, repetitions at the int64 edge, keys given twice.
sm_add_python_test(hostile_files test_hostile_files.py ${SCALEMETER_BIN})

# A folder, FIFO or device given for a network, device, framework or coefficient file is
# refused saying what it is, not "no such file"; a runs CSV may still be a pipe.
sm_add_python_test(not_regular_files test_not_regular_files.py ${SCALEMETER_BIN})

# Names that mean something to CSV or XML (a carriage return, invalid UTF-8, control characters)
# in what predict and curve write: read back as given by a standard reader.
sm_add_python_test(hostile_outputs test_hostile_outputs.py ${SCALEMETER_BIN})
