# The model zoo (models/*.ini): counts against PyTorch and torchvision's published numbers, the
# two layer types it brought (chunk, layer_scale), the PyTorch exporter (tools/export_torch.py),
# and `scalemeter models`.
sm_add_c_test(test_zoo_reference test_zoo_reference.c)
sm_add_c_test(test_zoo_plugins test_zoo_plugins.c)

# The exporter needs PyTorch and torchvision (Debian's python3-torchvision); where they are
# missing the test reports itself skipped (exit 77) rather than passing.
find_program(SM_SYSTEM_PYTHON3 python3 PATHS /usr/bin NO_DEFAULT_PATH)
if(SM_SYSTEM_PYTHON3)
  add_test(NAME test_export_torch
    COMMAND ${SM_SYSTEM_PYTHON3} tests/test_export_torch.py ${SCALEMETER_BIN}
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
else()
  add_test(NAME test_export_torch COMMAND sh -c "echo 'SKIP: no /usr/bin/python3'; exit 77")
endif()
set_tests_properties(test_export_torch PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)

# scalemeter models: the zoo with its published sizes (torchvision's docs: resnet50 has
# 25,557,032 parameters and 4.089 GFLOPS, which are MACs; Meta's Llama 3.1 8B 8,030,261,248)
# and the recipe a file names (torchtitan's bf16 and AdamW for Llama 3; none for resnet50)
add_test(NAME cli_models_table COMMAND ${SCALEMETER_BIN} models)
set_tests_properties(cli_models_table PROPERTIES PASS_REGULAR_EXPRESSION
  "model +input +weights +GMACs +L +recipe +source\n.*\nllama3_8b +8192 +8,030,261,248 +[0-9.]+ +[0-9]+ +bf16 adamw +Hugging Face.*\nresnet50 +3x224x224 +25,557,032 +4\\.089 +107 +- +torchvision\\.models\\.resnet50\n")
add_test(NAME cli_models_json COMMAND ${SCALEMETER_BIN} models --format json)
set_tests_properties(cli_models_json PROPERTIES PASS_REGULAR_EXPRESSION
  "\\{\"model\": \"mobilenet_v2\", \"input\": \\[3, 224, 224\\], \"weights\": 3504872, \"macs\": 300774272, ")
add_test(NAME cli_models_csv COMMAND ${SCALEMETER_BIN} models --format csv)
set_tests_properties(cli_models_csv PROPERTIES PASS_REGULAR_EXPRESSION
  "^model,input,weights,macs,flops,layers,source,path,optimizer,precision\n.*\nvgg16,3x224x224,138357544,15470264320,")
add_test(NAME cli_models_bad_format COMMAND ${SCALEMETER_BIN} models --format xml)
set_tests_properties(cli_models_bad_format PROPERTIES WILL_FAIL ON)

# tests/data/reference/saved_tensors.json (tools/torch_saved_tensors.py, autograd's saved tensors
# per zoo network, the activation-memory reference) against counts derived by hand; no torch
sm_add_python_test(test_saved_tensors_reference test_saved_tensors_reference.py)

# DeepLearningExamples' ResNeXt101-32x4d and SE-ResNeXt101-32x4d (no torchvision builder) against
# weights and MACs counted by hand from DLE's published shapes
sm_add_python_test(test_dle_zoo_params test_dle_zoo_params.py ${SCALEMETER_BIN})
