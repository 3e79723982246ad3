# The transformer part of the zoo: plugins embedding, pos_embedding, cls_token, tokens, select,
# attention, lm_head and the networks vit_b_16, bert_base, gpt2 (docs/transformers.md).
sm_add_c_test(test_transformers test_transformers.c)

# docs/transformers.md's worked example: what the command prints for BERT-base at 128 tokens.
add_test(NAME transformers_cli_bert_128
  COMMAND ${SCALEMETER_BIN} metrics bert_base --image 128 --format csv
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(transformers_cli_bert_128 PROPERTIES
  PASS_REGULAR_EXPRESSION "network,bert_base,,128,22423441920,11174215680,[0-9]+,0,0,109482240,")
# A sequence longer than BERT's 512 positions: one line naming the file and line, exit 1.
add_test(NAME transformers_cli_bert_too_long
  COMMAND ${SCALEMETER_BIN} metrics bert_base --image 1024
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(transformers_cli_bert_too_long PROPERTIES WILL_FAIL TRUE)
add_test(NAME transformers_cli_bert_too_long_message
  COMMAND ${SCALEMETER_BIN} metrics bert_base --image 1024
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(transformers_cli_bert_too_long_message PROPERTIES
  PASS_REGULAR_EXPRESSION "bert_base\\.ini:[0-9]+ .*position_embeddings.*longer than max_len 512")
# metrics takes --seq as predict and curve do (docs/transformers.md gave it; metrics refused
# the option): the same counts as --image 128, and the same refusals
add_test(NAME transformers_cli_bert_seq_128
  COMMAND ${SCALEMETER_BIN} metrics bert_base --seq 128 --format csv
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(transformers_cli_bert_seq_128 PROPERTIES
  PASS_REGULAR_EXPRESSION "network,bert_base,,128,22423441920,11174215680,[0-9]+,0,0,109482240,")
add_test(NAME transformers_cli_bert_seq_too_long
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_bench_cli.sh fails_plain
          "bert_base.ini:[0-9]* .*position_embeddings.*longer than max_len 512"
          ${SCALEMETER_BIN} metrics bert_base --seq 1024
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
add_test(NAME transformers_cli_seq_of_image
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_bench_cli.sh fails_plain
          "--seq: resnet50 is an image network; --image sets its height and width"
          ${SCALEMETER_BIN} metrics resnet50 --seq 128
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
# ViT at another image size: torchvision's ViT asserts the size it was built for, and its
# position table, added whole, cannot meet 50 tokens (112 x 112); it was priced at 50
add_test(NAME transformers_cli_vit_other_image
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_bench_cli.sh fails_plain
          "vit_b_16.ini:[0-9]*: layer encoder.pos_embedding (pos_embedding): sequence of 50 positions, but the table is added whole and holds exactly 197"
          ${SCALEMETER_BIN} predict vit_b_16 --device h100 --batch 8 --image 112
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})

# The Megatron GPT 1.7B networks and bert_large against their published sizes, by parameter
# counts worked out from the published shapes (docs/accuracy-lm.md)
sm_add_python_test(test_lm_zoo_params test_lm_zoo_params.py ${SCALEMETER_BIN})

# The networks NeuSight's published times ran (tests/data/neusight, tools/neusight_validation.py,
# docs/accuracy-neusight.md): their parameters against the counts derived by hand in each
# file's header (GPT-2 large's and OPT-1.3B's are the published ones)
foreach(case gpt2_large:774030080 gpt3_xl:2879554560 gpt3_27:2651553280
             opt_1_3b:1315758080 bert_large_pretraining:336226108)
  string(REPLACE ":" ";" pair ${case})
  list(GET pair 0 name)
  list(GET pair 1 weights)
  add_test(NAME neusight_network_${name}
    COMMAND ${SCALEMETER_BIN} metrics tests/data/neusight/${name}.ini --format json
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(neusight_network_${name} PROPERTIES
    PASS_REGULAR_EXPRESSION "\"weights\": ${weights},")
endforeach()
# tools/neusight_validation.py: the keys and values the causal LMs return at inference (by hand
# from transformers 4.38.1's GPT-2 and OPT), and docs/accuracy-neusight.md's prose against its
# tables
sm_add_python_test(tool_neusight_validation test_neusight_validation.py ${SCALEMETER_BIN})
# tools/neusight_ops.py: NeuSight's per-op timings of one layer by class, against its label CSV
# by hand; docs/ops-neusight.md's cells and the README's figures against the rows.
sm_add_python_test(tool_neusight_ops test_neusight_ops.py ${SCALEMETER_BIN})
# kv_cache=true: the keys and values a causal LM returns at inference, in predict's inference
# memory (plugin ABI 21's infer_kept_elems), against byte counts by hand
sm_add_python_test(cli_kv_cache test_kv_cache_cli.py ${SCALEMETER_BIN})
# predict --fp8: a float8 recipe's products, casts and output projection, by hand
sm_add_python_test(cli_fp8 test_fp8_cli.py ${SCALEMETER_BIN})
# no --precision: the network's recipe's (Llama's bf16), its fallbacks, what wins over it
sm_add_python_test(cli_recipe_precision test_recipe_precision_cli.py ${SCALEMETER_BIN})
