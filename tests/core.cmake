# Tests of the core: plugin loader, network parser, shape inference and metrics, CLI.

# Fake plugins for the loader, each in its own folder: a good one, one built for another ABI
# version, one without the entry point, one that exports nothing (SM_DEFINE_PLUGIN left out,
# built with hidden visibility), one claiming the name conv2d.
foreach(kind good abi noentry noexport dup)
  sm_test_module(fake_plugin_${kind} fake_plugin.c fake_plugins/${kind} ${kind})
endforeach()
target_compile_definitions(fake_plugin_abi PRIVATE TEST_ABI_VERSION=99 TEST_TYPE_NAME="test_abi")
target_compile_definitions(fake_plugin_noentry PRIVATE TEST_NO_ENTRY)
target_compile_definitions(fake_plugin_noexport PRIVATE TEST_NO_EXPORT)
set_target_properties(fake_plugin_noexport PROPERTIES C_VISIBILITY_PRESET hidden)
target_compile_definitions(fake_plugin_dup PRIVATE TEST_TYPE_NAME="conv2d")

sm_add_c_test(test_registry test_registry.c
  $<TARGET_FILE:fake_plugin_good> $<TARGET_FILE:fake_plugin_abi>
  $<TARGET_FILE:fake_plugin_noentry> $<TARGET_FILE:fake_plugin_dup>
  ${CMAKE_BINARY_DIR}/tests/fake_plugins/abi $<TARGET_FILE:fake_plugin_noexport>)

sm_add_c_test(test_network test_network.c)
# messages longer than an sm_status: the middle of a path goes, not the reason at the end
sm_add_c_test(test_status_message test_status_message.c)
sm_add_c_test(test_fnv test_fnv.c)
# a network predicted after its registry was freed
sm_add_c_test(test_lifetime test_lifetime.c)

# Numbers in files read and written with '.' in a program whose locale writes a comma: de_DE,
# built into the build tree (localedef needs no root; Debian's locales package has its
# definition, tools/install-deps.sh --test installs it). Without it test_locale skips.
add_test(NAME locale_de_DE COMMAND sh -c "mkdir -p '${CMAKE_BINARY_DIR}/tests/locale' && \
localedef -i de_DE -f UTF-8 '${CMAKE_BINARY_DIR}/tests/locale/de_DE.UTF-8' 2>/dev/null; exit 0")
set_tests_properties(locale_de_DE PROPERTIES FIXTURES_SETUP locale_de_DE)
sm_add_c_test(test_locale test_locale.c de_DE.UTF-8)
set_tests_properties(test_locale PROPERTIES FIXTURES_REQUIRED locale_de_DE SKIP_RETURN_CODE 77
  ENVIRONMENT "LOCPATH=${CMAKE_BINARY_DIR}/tests/locale")
sm_add_c_test(test_network_errors test_network_errors.c)
# the C API against a caller's bad arguments: NULL pointers, a short path buffer, --image < 0
sm_add_c_test(test_c_api_args test_c_api_args.c)
# which failure sm_atomic_open's was, as a code: -o tells "not writable" apart by it
sm_add_c_test(test_atomic_open test_atomic_open.c)

add_test(NAME test_example_plugin
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_example_plugin.sh ${SCALEMETER_BIN}
          ${CMAKE_C_COMPILER} ${PROJECT_SOURCE_DIR})
if(SCALEMETER_SANITIZE)
  # its bench step runs under MPI, whose own allocations LeakSanitizer reports (bench.cmake)
  set_tests_properties(test_example_plugin PROPERTIES ENVIRONMENT "ASAN_OPTIONS=detect_leaks=0")
endif()

# The metrics command as a user runs it: JSON keys and values, CSV header, bad input.
add_test(NAME cli_metrics_json
  COMMAND ${SCALEMETER_BIN} metrics examples/tiny_resnet.ini --format json --batch 2
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
# batch 2: 2 x 13,549,888 MACs (tests/test_network.c derives them), weights stay 24,666
set_tests_properties(cli_metrics_json PROPERTIES PASS_REGULAR_EXPRESSION
  "\"batch\": 2, \"flops\": 54920532, \"macs\": 27099776, \"bwd_flops\": [0-9]+, \"inputs\": 219136, \"outputs\": 212992, \"weights\": 24666, \"layers\": 17, \"param_tensors\": 26")
add_test(NAME cli_metrics_csv_per_layer
  COMMAND ${SCALEMETER_BIN} metrics examples/tiny_resnet.ini --format csv --per-layer
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(cli_metrics_csv_per_layer PROPERTIES PASS_REGULAR_EXPRESSION
  "^scope,name,type,output,flops,macs,bwd_flops,inputs,outputs,weights,layers,param_tensors,kernels,bytes,kernels_infer,kernels_fwd,kernels_bwd\nnetwork,tiny_resnet,,3x32x32,.*\nlayer,layer2.0.downsample.0,conv2d,32x16x16,262144,131072,")
add_test(NAME cli_metrics_unknown_model COMMAND ${SCALEMETER_BIN} metrics no_such_model)
set_tests_properties(cli_metrics_unknown_model PROPERTIES WILL_FAIL ON)
add_test(NAME cli_metrics_unknown_model_message COMMAND ${SCALEMETER_BIN} metrics no_such_model)
set_tests_properties(cli_metrics_unknown_model_message PROPERTIES
  PASS_REGULAR_EXPRESSION "unknown model 'no_such_model'")
# a near miss of a shipped name is answered with the name: another case, a hyphen for an
# underscore, a shipped name with more after it (h100-pcie-80gb begins h100-pcie, one letter
# from a100-pcie-80gb: both said, the one it begins first), a name a shipped one ends (the
# part without its family: a6000, 8000), nothing for a name near none
foreach(case
    "ResNet50|metrics;ResNet50|\\(did you mean resnet50\\? `scalemeter models` lists the zoo\\)"
    "llama3-8b|metrics;llama3-8b|\\(did you mean llama3_8b\\?"
    "H100|predict;resnet50;--batch;1;--device;H100|\\(did you mean h100\\?\\)"
    "h100-sxm5|predict;resnet50;--batch;1;--device;h100-sxm5|\\(did you mean h100\\?\\)"
    "h100-pcie-80gb|predict;resnet50;--batch;1;--device;h100-pcie-80gb|\\(did you mean h100-pcie or a100-pcie-80gb\\?\\)"
    "pytorch|predict;resnet50;--batch;1;--device;h100;--framework;pytorch|\\(did you mean pytorch-channels-last, pytorch-eager, pytorch-eager-cudnn8 or 2 more\\?\\)"
    "a6000|predict;resnet50;--batch;1;--device;a6000|\\(did you mean rtx-a6000\\?\\)"
    "8000|predict;resnet50;--batch;1;--device;8000|\\(did you mean quadro-rtx8000\\?\\)")
  string(REPLACE "|" ";" parts "${case}")
  list(GET parts 0 name)
  list(GET parts -1 want)
  list(REMOVE_AT parts 0 -1)
  add_test(NAME cli_near_name_${name} COMMAND ${SCALEMETER_BIN} ${parts})
  set_tests_properties(cli_near_name_${name} PROPERTIES PASS_REGULAR_EXPRESSION "${want}")
endforeach()
add_test(NAME cli_near_name_none COMMAND ${SCALEMETER_BIN} metrics no_such_model)
set_tests_properties(cli_near_name_none PROPERTIES FAIL_REGULAR_EXPRESSION "did you mean"
  PASS_REGULAR_EXPRESSION "unknown model 'no_such_model'")
# a name ending .ini is a file's: no zoo path "name.ini.ini" in the message, and the zoo's own
# name where the zoo has it
add_test(NAME cli_metrics_unknown_model_ini COMMAND ${SCALEMETER_BIN} metrics no_such_model.ini)
set_tests_properties(cli_metrics_unknown_model_ini PROPERTIES PASS_REGULAR_EXPRESSION
  "unknown model 'no_such_model.ini': no such file \\(`scalemeter models` lists the zoo\\)")
add_test(NAME cli_metrics_zoo_model_ini COMMAND ${SCALEMETER_BIN} metrics resnet50.ini
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}/tests)
set_tests_properties(cli_metrics_zoo_model_ini PROPERTIES PASS_REGULAR_EXPRESSION
  "unknown model 'resnet50.ini': no such file here \\(the shipped one is named resnet50, without")
add_test(NAME cli_metrics_bad_batch COMMAND ${SCALEMETER_BIN} metrics examples/tiny_resnet.ini --batch 0
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(cli_metrics_bad_batch PROPERTIES WILL_FAIL ON)

# A bench CSV with an out-of-memory row: fit leaves it out and says so, instead of refusing the
# file (the row has no times). 6 measured rows of 3 networks fit the 4 inference coefficients.
add_test(NAME cli_fit_skips_oom_rows
  COMMAND ${SCALEMETER_BIN} fit tests/data/fit/oom_rows.csv --format json
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(cli_fit_skips_oom_rows PROPERTIES PASS_REGULAR_EXPRESSION
  "1 rows not measured \\(status other than ok")

# Output that cannot be written is an error, not a silent exit 0 (/dev/full: every write fails
# with ENOSPC, as on a full disk); the same for predict and fit's table.
foreach(cmd "metrics;resnet18" "predict;resnet18;--batch;2" "models")
  list(GET cmd 0 name)
  string(REPLACE ";" " " args "${cmd}")
  add_test(NAME cli_${name}_output_full
    COMMAND sh -c "out=$(\"$0\" ${args} 2>&1 >/dev/full); echo \"rc=$? $out\"" ${SCALEMETER_BIN})
  set_tests_properties(cli_${name}_output_full PROPERTIES PASS_REGULAR_EXPRESSION
    "rc=1 scalemeter ${name}: cannot write the output: No space left on device")
endforeach()
# Help and the version are output too: `predict --help >/dev/full` and the others exited 0 with
# nothing written (--help left through command_exit, main's own help through return 0).
foreach(case "predict_help;predict;predict --help" "help_curve;curve;help curve"
        "help_fit;fit;fit --help" "help;help;--help" "help_help;help;help help"
        "version;--version;--version")
  list(GET case 0 test)
  list(GET case 1 name)
  list(GET case 2 args)
  add_test(NAME cli_${test}_output_full
    COMMAND sh -c "out=$(\"$0\" ${args} 2>&1 >/dev/full); echo \"rc=$? $out\"" ${SCALEMETER_BIN})
  set_tests_properties(cli_${test}_output_full PROPERTIES PASS_REGULAR_EXPRESSION
    "^rc=1 scalemeter ${name}: cannot write the output: ")
endforeach()
# An -o FILE that cannot be opened is exit 1 in every command, as a file's error: the commands of
# --format and -o alone (format_options) said 2, a usage error's status.
foreach(name models plugins devices backends)
  add_test(NAME cli_${name}_output_unwritable
    COMMAND sh -c "out=$(\"$0\" ${name} -o /nonexistent/dir/x 2>&1); echo \"rc=$? $out\""
            ${SCALEMETER_BIN})
  set_tests_properties(cli_${name}_output_unwritable PROPERTIES PASS_REGULAR_EXPRESSION
    "^rc=1 scalemeter ${name}: cannot write /nonexistent/dir/x: No such file or directory")
endforeach()

# A folder given where a network file is expected says so (not "no such file").
add_test(NAME cli_metrics_folder_as_model COMMAND ${SCALEMETER_BIN} metrics ${PROJECT_SOURCE_DIR}/models)
set_tests_properties(cli_metrics_folder_as_model PROPERTIES WILL_FAIL ON)
add_test(NAME cli_metrics_folder_as_model_message
  COMMAND sh -c "\"$0\" metrics \"$1\" 2>&1" ${SCALEMETER_BIN} ${PROJECT_SOURCE_DIR}/models)
set_tests_properties(cli_metrics_folder_as_model_message PROPERTIES PASS_REGULAR_EXPRESSION
  "models: is a folder, not a model file")

# One device's memory (memory.h), hand-derived on a small network.
sm_add_c_test(test_memory test_memory.c)
sm_add_c_test(test_lm_memory test_lm_memory.c)
# Sharded data parallelism and activation checkpointing in that memory, hand-derived.
sm_add_c_test(test_memory_sharding test_memory_sharding.c)

# The commit-msg hook of tools/hooks refuses messages not in git's form.
add_test(NAME commit_msg_hook COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_commit_msg.sh
         ${PROJECT_SOURCE_DIR}/tools/hooks/commit-msg)

# The core's areas depend one way: includes and calls (core/src/README.md).
add_test(NAME core_layers COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_core_layers.sh
         ${PROJECT_SOURCE_DIR}/core/src ${CMAKE_BINARY_DIR}/core/CMakeFiles/scalemeter.dir/src)
