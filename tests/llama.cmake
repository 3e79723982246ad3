# Llama-style layer types (rmsnorm, swiglu, gqa_attention) and the zoo's llama3_8b and
# llama3_70b: counts against PyTorch and Meta's published sizes, CPU backward against finite
# differences, refusals.
sm_add_c_test(test_llama test_llama.c)

# A sequence longer than the rotary table's 131072 positions: one line naming the file and line.
add_test(NAME llama_cli_too_long
  COMMAND ${SCALEMETER_BIN} metrics llama3_8b --image 131073
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(llama_cli_too_long PROPERTIES WILL_FAIL TRUE)
add_test(NAME llama_cli_too_long_message
  COMMAND ${SCALEMETER_BIN} metrics llama3_8b --image 131073
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(llama_cli_too_long_message PROPERTIES
  PASS_REGULAR_EXPRESSION "llama3_8b\\.ini:[0-9]+ .*self_attn.*longer than max_len 131072")

# scalemeter models lists both with Meta's published sizes.
add_test(NAME llama_cli_models COMMAND ${SCALEMETER_BIN} models)
set_tests_properties(llama_cli_models PROPERTIES PASS_REGULAR_EXPRESSION
  "llama3_70b +8192 +70,553,706,496 .*\nllama3_8b +8192 +8,030,261,248 ")
