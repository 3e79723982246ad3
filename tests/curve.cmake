# Tests of scaling curves, the device (roofline) predictor, the ring all-reduce model and the
# `curve` command (docs/scaling.md).
sm_add_c_test(test_allreduce_model test_allreduce_model.c)
sm_add_c_test(test_device_predictor test_device_predictor.c)
# The kernels training launches per pass (plugin ABI 5's counts) and their dispatch.
sm_add_c_test(test_kernel_counts test_kernel_counts.c)
# Sharding and checkpointing in its step, hand-derived on the same device.
sm_add_c_test(test_device_sharding test_device_sharding.c)
# Gradient accumulation (--accumulate K) in the step, the layout and curves, hand-derived there.
sm_add_c_test(test_accumulate test_accumulate.c)
sm_add_c_test(test_device_file test_device_file.c)
# fit --device-out: the keys of a description recovered from the times it predicts
sm_add_c_test(test_device_fit test_device_fit.c ${CMAKE_CURRENT_BINARY_DIR})
# sm_comm_fit on runs of one device a node, without a base (hand-made ring times)
sm_add_c_test(test_comm_fit test_comm_fit.c)
# ... on rows of 12,000 networks: each found once, each configuration designed once; the
# fit of the distinct rows
sm_add_python_test(cli_device_fit_many test_device_fit_many_cli.py ${SCALEMETER_BIN})
# ... where the layers' classes flip for ever: said, and the round that predicts best written
sm_add_python_test(cli_device_fit_settle test_device_fit_settle_cli.py ${SCALEMETER_BIN})
sm_add_c_test(test_curve test_curve.c)

# The command as a user runs it (every format, every bad input), and its SVG chart rendered by
# headless Chromium (skipped, visibly, with code 77 where Chromium is absent). Both need only
# python3's standard library.
if(SM_TEST_PYTHON3)
  sm_add_python_test(cli_curve test_curve_cli.py ${SCALEMETER_BIN})
  sm_add_python_test(cli_curve_render test_curve_render.py ${SCALEMETER_BIN})
  set_tests_properties(cli_curve_render PROPERTIES SKIP_RETURN_CODE 77)
  # 12 curves told apart, the ideal lines visible over them, labels off the lines (issue 35)
  sm_add_python_test(cli_curve_svg_legible test_curve_svg_legible.py ${SCALEMETER_BIN})
else() # visibly skipped rather than missing
  foreach(name cli_curve cli_curve_render cli_curve_svg_legible)
    add_test(NAME ${name} COMMAND sh -c "echo 'SKIP: no python3'; exit 77")
    set_tests_properties(${name} PROPERTIES SKIP_RETURN_CODE 77)
  endforeach()
endif()

# --framework: a framework file's [framework] replaces the device file's (configs/frameworks/)
add_test(NAME cli_curve_framework
  COMMAND ${SCALEMETER_BIN} curve resnet50 --device h100 --framework cuda-graphs --batch 8
          --nodes 1
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(cli_curve_framework PROPERTIES PASS_REGULAR_EXPRESSION "cuda-graphs dispatch")
add_test(NAME cli_curve_framework_fused
  COMMAND ${SCALEMETER_BIN} curve resnet50 --device h100 --framework fused --batch 8 --nodes 1
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(cli_curve_framework_fused PROPERTIES PASS_REGULAR_EXPRESSION "fused dispatch")
add_test(NAME cli_curve_framework_not_a_framework
  COMMAND ${SCALEMETER_BIN} curve resnet50 --device h100 --framework configs/devices/a100.ini
          --batch 8 --nodes 1
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(cli_curve_framework_not_a_framework PROPERTIES WILL_FAIL ON)
add_test(NAME cli_curve_framework_not_a_framework_message
  COMMAND ${SCALEMETER_BIN} curve resnet50 --device h100 --framework configs/devices/a100.ini
          --batch 8 --nodes 1
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(cli_curve_framework_not_a_framework_message PROPERTIES
  PASS_REGULAR_EXPRESSION "a100.ini:5: \\[device\\] in a framework file: expected \\[framework\\] only")

# The description names cuDNN's transposes around NCHW convolutions at bf16 only for a network
# that has convolutions: not gpt2 (no convolution), but resnet50, and curve's header alike.
add_test(NAME cli_predict_layout_transformer
  COMMAND ${SCALEMETER_BIN} predict gpt2 --device h100 -g 1 --batch 1 --precision bf16
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(cli_predict_layout_transformer PROPERTIES
  PASS_REGULAR_EXPRESSION "roofline at bf16, " FAIL_REGULAR_EXPRESSION "cuDNN|NCHW")
add_test(NAME cli_predict_layout_cnn
  COMMAND ${SCALEMETER_BIN} predict resnet50 --device h100 -g 1 --batch 1 --precision bf16
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(cli_predict_layout_cnn PROPERTIES
  PASS_REGULAR_EXPRESSION "roofline at bf16 NCHW \\(cuDNN transposes [^)]*convolutions[^)]*\\), ")
add_test(NAME cli_curve_layout_transformer
  COMMAND ${SCALEMETER_BIN} curve gpt2 --device h100 --batch 1 --nodes 1 --precision bf16
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(cli_curve_layout_transformer PROPERTIES
  PASS_REGULAR_EXPRESSION "roofline at bf16, " FAIL_REGULAR_EXPRESSION "cuDNN|NCHW")
add_test(NAME cli_curve_layout_cnn
  COMMAND ${SCALEMETER_BIN} curve resnet50 --device h100 --batch 1 --nodes 1 --precision bf16
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(cli_curve_layout_cnn PROPERTIES
  PASS_REGULAR_EXPRESSION "roofline at bf16 NCHW \\(cuDNN transposes [^)]*convolutions[^)]*\\), ")

# tools/mlperf_epochs.py, which docs/accuracy.md's MLPerf throughputs come from, on logs written
# by the test
sm_add_python_test(tool_mlperf_epochs test_mlperf_epochs.py)
# tools/multi_gpu_validation.py --logs, which docs/accuracy-multi-gpu.md's figures come from, on
# logs written by the test (a Summary line, steps across midnight, the second round's folder)
sm_add_python_test(tool_lambda_logs test_lambda_logs.py)
# tools/device_scorecard.py, which docs/accuracy-devices.md comes from: its per-part figures on
# rows worked out by hand, and the README's total against the shipped document
sm_add_python_test(tool_device_scorecard test_device_scorecard.py ${SCALEMETER_BIN})
# Memory in predict and curve: fits, the largest batch, points that cannot run.
sm_add_python_test(cli_memory test_memory_cli.py ${SCALEMETER_BIN})
# compare: each part's row is predict's for it, a part that cannot run the options says why,
# `all` is every description, the list's slips are usage errors
sm_add_python_test(cli_compare test_compare_cli.py ${SCALEMETER_BIN})
# --compile (fuse_pointwise): a composite GELU and GPT-2's eager attention priced by hand on a
# toy part whose layer times are their bytes over 1e12
sm_add_python_test(cli_compile test_compile_cli.py ${SCALEMETER_BIN})
# A network of 10^6 layers under the fusing frameworks: it finishes, and its chain of ReLUs fuses.
sm_add_python_test(cli_deep_network test_deep_network_cli.py ${SCALEMETER_BIN})
# One [block] of 10^6 layers written inline: it loads (its keys overflowed the stack) and counts.
sm_add_python_test(cli_deep_block test_deep_block_cli.py ${SCALEMETER_BIN})
# A template of 50,000 layers using a block's 50,000 arguments: each found by bisection.
sm_add_python_test(cli_template_args test_template_args_cli.py ${SCALEMETER_BIN})
# predict --per-block on 100,000 blocks: one walk over the layers, equal blocks equal.
sm_add_python_test(cli_many_blocks test_many_blocks_cli.py ${SCALEMETER_BIN})
# --shard and --checkpoint in predict and curve: memory, time, refusals, hand-derived.
sm_add_python_test(cli_sharding test_sharding_cli.py ${SCALEMETER_BIN})
# --accumulate K in predict and curve: the step of K micro-batches from the K = 1 run's
# components, throughput, epochs, memory, columns, refusals.
sm_add_python_test(cli_accumulate test_accumulate_cli.py ${SCALEMETER_BIN})
# Every zoo network's activations against PyTorch's record of what autograd keeps (3%).
sm_add_python_test(memory_zoo_vs_pytorch test_memory_zoo.py ${SCALEMETER_BIN})
# GPT-2's returned keys and values (kv_cache=true) against PyTorch's inference peak with and
# without them (tests/data/reference/kv_cache.json, tools/torch_kv_cache.py)
sm_add_python_test(memory_kv_cache_vs_pytorch test_kv_cache_reference.py ${SCALEMETER_BIN})
# Training's peak with and without checkpointing against PyTorch's allocator.
sm_add_python_test(checkpoint_memory_vs_pytorch test_checkpoint_memory.py ${SCALEMETER_BIN})
# Every configuration the shipped H100 sets ran is predicted to fit an H100.
sm_add_python_test(memory_measured_runs_fit test_memory_measured.py ${SCALEMETER_BIN})

# Tokens as the unit of sequence networks in predict and curve: --seq, tokens_per_s, --tokens
# with SI suffixes, mfu against GPT-2's hand count, and their refusals (issue 36).
sm_add_python_test(cli_tokens test_tokens_cli.py ${SCALEMETER_BIN})
# --attention eager|fused in predict and curve: the scores kept, hand-derived; refusals.
sm_add_python_test(cli_attention test_attention_cli.py ${SCALEMETER_BIN})
sm_add_python_test(cli_dispatch test_dispatch_cli.py ${SCALEMETER_BIN})

# Relations every prediction keeps (docs/scaling.md's and docs/memory.md's equations, physics),
# over 60 seeded random configurations of zoo models, devices, precisions, shardings,
# checkpointing, batches and node counts; predict against curve's same point.
sm_add_python_test(prediction_invariants test_invariants.py ${SCALEMETER_BIN})
# Relations between predictions (metamorphic): weak scaling, the layout, faster descriptions
# and frameworks, checkpointing, accumulation, renamed, expanded and padded network files,
# sums, formats, round trips through validate and fit, precisions, NCCL's restricted choice,
# the ring's equation, strong scaling, input sizes, energy; seeded, about half a minute.
sm_add_python_test(prediction_relations test_prediction_relations.py ${SCALEMETER_BIN})
# tools/op_ratio.py, which docs/ops-h100-h200.md comes from, on profiles and clocks written by
# the test (a class at the DRAM's ratio, one at the SMs', idle clock samples left out)
sm_add_python_test(tool_op_ratio test_op_ratio.py)
# tools/conv_kinds.py --check: the h100 and h200 descriptions' convolutions by kind and pass
# price the H100's and H200's profiled convolution kernels within 1% of their measured time
# (or sit at their matrix products' efficiency), so a change to the prices says to derive them
# again (tools/conv_kinds.py --write)
sm_add_python_test(tool_conv_kinds ../tools/conv_kinds.py --check --bin ${SCALEMETER_BIN})
# the layer norm keys of the eager frameworks are what the H100's and H200's profiles give
sm_add_python_test(tool_rownorm_rates ../tools/rownorm_rates.py --check --bin ${SCALEMETER_BIN})
# and so are their bias gradients' reduction rates
sm_add_python_test(tool_bias_grad_rates ../tools/bias_grad_rates.py --check --bin ${SCALEMETER_BIN})
# and the stem and bias keys of the h100 and h200 descriptions and pytorch-eager-kernels
sm_add_python_test(tool_stem_rates ../tools/stem_rates.py --check --bin ${SCALEMETER_BIN})
# and their transposes' and grouped convolutions' keys at fp16 and bf16 (the profiles that time
# each kernel)
sm_add_python_test(tool_transpose_rates ../tools/transpose_rates.py --check --bin ${SCALEMETER_BIN})
# and what it derives them from, by hand on a profile written by the test
sm_add_python_test(tool_transpose_rates_hand test_transpose_rates.py ${SCALEMETER_BIN})
# the cuDNN depthwise keys of every eager framework are what the profiles give
sm_add_python_test(tool_cudnn_depthwise_rates ../tools/cudnn_depthwise_rates.py --check
                   --bin ${SCALEMETER_BIN})
# and what it derives them from, by hand on profiled steps written by the test
sm_add_python_test(tool_cudnn_depthwise_rates_hand test_cudnn_depthwise_rates.py ${SCALEMETER_BIN})
# a lease's profiles merged into a part's file, and the rate tools' --write, on files it writes
sm_add_python_test(tool_merge_profiles test_merge_profiles.py ${SCALEMETER_BIN})
# BERT's ops classed as the model's layer types, and docs/ops-bert-h200.md's tables from them
sm_add_python_test(tool_bert_ops test_bert_ops.py ${SCALEMETER_BIN})
sm_add_python_test(tool_validation_era test_validation_era.py ${SCALEMETER_BIN})
# the broadcast key of every eager framework is what the profiles give, and its shapes by hand
sm_add_python_test(tool_broadcast_rates test_broadcast_rates.py ${SCALEMETER_BIN})
# and their conv_pass_us prices the profiled convolutions' forward passes, layer by layer,
# better than a microsecond more or less would (the kinds refitted at each; about a minute)
sm_add_python_test(tool_conv_pass ../tools/conv_pass.py --check --bin ${SCALEMETER_BIN})
# tools/gpu-validate.sh stopped by a lease's time limit keeps its phase's rows in --out (with
# stand-ins for nvidia-smi, the pack and the measuring tools)
add_test(NAME tool_gpu_validate_stop
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_gpu_validate_stop.sh)
