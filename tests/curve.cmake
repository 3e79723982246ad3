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
sm_add_c_test(test_curve test_curve.c)

# The command as a user runs it (every format, every bad input), and its SVG chart rendered by
# headless Chromium (skipped, visibly, with code 77 where Chromium is absent). Both need only
# python3's standard library.
find_program(SM_CURVE_PYTHON3 python3)
if(SM_CURVE_PYTHON3)
  add_test(NAME cli_curve COMMAND ${SM_CURVE_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/test_curve_cli.py
           ${SCALEMETER_BIN} WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  add_test(NAME cli_curve_render
           COMMAND ${SM_CURVE_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/test_curve_render.py
           ${SCALEMETER_BIN} WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(cli_curve_render PROPERTIES SKIP_RETURN_CODE 77)
  # 12 curves told apart, the ideal lines visible over them, labels off the lines (issue 35)
  add_test(NAME cli_curve_svg_legible
           COMMAND ${SM_CURVE_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/test_curve_svg_legible.py
           ${SCALEMETER_BIN} WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
else()
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
  PASS_REGULAR_EXPRESSION "roofline at bf16 NCHW \\(cuDNN transposes around convolutions\\), ")
add_test(NAME cli_curve_layout_transformer
  COMMAND ${SCALEMETER_BIN} curve gpt2 --device h100 --batch 1 --nodes 1 --precision bf16
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(cli_curve_layout_transformer PROPERTIES
  PASS_REGULAR_EXPRESSION "roofline at bf16, " FAIL_REGULAR_EXPRESSION "cuDNN|NCHW")
add_test(NAME cli_curve_layout_cnn
  COMMAND ${SCALEMETER_BIN} curve resnet50 --device h100 --batch 1 --nodes 1 --precision bf16
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(cli_curve_layout_cnn PROPERTIES
  PASS_REGULAR_EXPRESSION "roofline at bf16 NCHW \\(cuDNN transposes around convolutions\\), ")

# tools/mlperf_epochs.py, which docs/accuracy.md's MLPerf throughputs come from, on logs written
# by the test
find_program(SM_MLPERF_PYTHON3 python3)
if(SM_MLPERF_PYTHON3)
  add_test(NAME tool_mlperf_epochs COMMAND ${SM_MLPERF_PYTHON3}
           ${CMAKE_CURRENT_SOURCE_DIR}/test_mlperf_epochs.py WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
endif()
if(SM_CURVE_PYTHON3)
  # Memory in predict and curve: fits, the largest batch, points that cannot run.
  add_test(NAME cli_memory COMMAND ${SM_CURVE_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/test_memory_cli.py
           ${SCALEMETER_BIN} WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
endif()
if(SM_CURVE_PYTHON3)
  # --shard and --checkpoint in predict and curve: memory, time, refusals, hand-derived.
  add_test(NAME cli_sharding COMMAND ${SM_CURVE_PYTHON3}
           ${CMAKE_CURRENT_SOURCE_DIR}/test_sharding_cli.py ${SCALEMETER_BIN}
           WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
endif()
if(SM_CURVE_PYTHON3)
  # --accumulate K in predict and curve: the step of K micro-batches from the K = 1 run's
  # components, throughput, epochs, memory, columns, refusals.
  add_test(NAME cli_accumulate COMMAND ${SM_CURVE_PYTHON3}
           ${CMAKE_CURRENT_SOURCE_DIR}/test_accumulate_cli.py ${SCALEMETER_BIN}
           WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
endif()
if(SM_CURVE_PYTHON3)
  # Every zoo network's activations against PyTorch's record of what autograd keeps (3%).
  add_test(NAME memory_zoo_vs_pytorch
           COMMAND ${SM_CURVE_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/test_memory_zoo.py
           ${SCALEMETER_BIN} WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
endif()
if(SM_CURVE_PYTHON3)
  # Every configuration the shipped H100 sets ran is predicted to fit an H100.
  add_test(NAME memory_measured_runs_fit
           COMMAND ${SM_CURVE_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/test_memory_measured.py
           ${SCALEMETER_BIN} WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
endif()

# Tokens as the unit of sequence networks in predict and curve: --seq, tokens_per_s, --tokens
# with SI suffixes, mfu against GPT-2's hand count, and their refusals (issue 36).
if(SM_CURVE_PYTHON3)
  add_test(NAME cli_tokens COMMAND ${SM_CURVE_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/test_tokens_cli.py
           ${SCALEMETER_BIN} WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
endif()
if(SM_CURVE_PYTHON3)
  # --attention eager|fused in predict and curve: the scores kept, hand-derived; refusals.
  add_test(NAME cli_attention COMMAND ${SM_CURVE_PYTHON3}
           ${CMAKE_CURRENT_SOURCE_DIR}/test_attention_cli.py ${SCALEMETER_BIN}
           WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
endif()

# Relations every prediction keeps (docs/scaling.md's and docs/memory.md's equations, physics),
# over 60 seeded random configurations of zoo models, devices, precisions, shardings,
# checkpointing, batches and node counts; predict against curve's same point.
sm_add_python_test(prediction_invariants test_invariants.py ${SCALEMETER_BIN})
