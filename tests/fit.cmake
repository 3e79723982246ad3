# Tests of fitting, validation and prediction from coefficients (issue 4): least squares and
# NNLS against hand-solved systems, recovery of chosen coefficients from synthetic runs of the
# tiny networks of tests/data/fit/, leave-one-model-out against a hand computation, and the
# `fit` and `predict` commands, including every bad input they must refuse.
sm_add_c_test(test_fit_lstsq test_fit_lstsq.c)
# lstsq.c built into the test against a LAPACKE soname that no machine has: one line naming it.
sm_add_c_test(test_lstsq_no_lapacke test_lstsq_no_lapacke.c)
target_sources(test_lstsq_no_lapacke PRIVATE ${PROJECT_SOURCE_DIR}/core/src/util/lstsq.c)
target_compile_definitions(test_lstsq_no_lapacke PRIVATE
  SM_LAPACKE_SONAME="libsm_no_such_lapacke.so.9")
target_include_directories(test_lstsq_no_lapacke PRIVATE ${LAPACKE_INCLUDE_DIRS})
sm_add_c_test(test_fit test_fit.c ${CMAKE_CURRENT_BINARY_DIR})
sm_add_c_test(test_fit_loo test_fit_loo.c ${CMAKE_CURRENT_BINARY_DIR})
# the measurement CSV's quoting (RFC 4180): quoted commas, quotes, newlines; text after a quote
sm_add_c_test(test_runs_csv test_runs_csv.c ${CMAKE_CURRENT_BINARY_DIR})
# the hierarchical ring form of the gradient term: hand-worked terms, recovery, left-out levels
sm_add_c_test(test_fit_ring test_fit_ring.c ${CMAKE_CURRENT_BINARY_DIR})
# several devices: the gradient phase beyond the passes, CPU ranks' shared memory system
sm_add_c_test(test_fit_step test_fit_step.c ${CMAKE_CURRENT_BINARY_DIR})

set(SM_FIT_CLI sh ${CMAKE_CURRENT_SOURCE_DIR}/test_fit_cli.sh)
set(SM_FIT_DATA tests/data/fit)

# Bad measurements, bad options and bad coefficient files: a non-zero exit and one line naming
# the file and line, the phase or the option. NAME|TEXT|ARGS (';'-separated).
foreach(case
    "negative|bad_negative.csv:3: t_fwd -0.5 is not a positive time|fit;${SM_FIT_DATA}/bad_negative.csv"
    "nan|bad_nan.csv:4: t_bwd is nan|fit;${SM_FIT_DATA}/bad_nan.csv"
    "text|bad_text.csv:2: t_infer 'fast' is not a number of seconds|fit;${SM_FIT_DATA}/bad_text.csv"
    "batch|bad_batch.csv:2: batch 0 is out of range|fit;${SM_FIT_DATA}/bad_batch.csv"
    "empty_row|bad_empty_row.csv:2: no time measured|fit;${SM_FIT_DATA}/bad_empty_row.csv"
    "header|bad_header.csv:1: no column 't_grad' in the header|fit;${SM_FIT_DATA}/bad_header.csv"
    "model|bad_model.csv:2: model no_such_net at image 64: unknown model 'no_such_net'|fit;${SM_FIT_DATA}/bad_model.csv"
    "too_few|phase infer: 3 points for 4 coefficients: too few points|fit;${SM_FIT_DATA}/too_few.csv"
    "mixed_precision|choose one with --precision|fit;${SM_FIT_DATA}/mixed_precision.csv"
    "no_such_precision|none of its 3 rows is of precision fp16|fit;${SM_FIT_DATA}/mixed_precision.csv;--precision;fp16"
    "bad_precision_value|bad_precision.csv:3: precision 'half': expected fp32, tf32, fp16 or bf16|fit;${SM_FIT_DATA}/bad_precision.csv"
    "predict_precision|it cannot predict bf16 (fit the bf16 rows|predict;${SM_FIT_DATA}/tiny_a.ini;--batch;1;--coeffs;${SM_FIT_DATA}/tiny_coeffs.ini;--precision;bf16"
    "validate_which|give one of --coeffs FILE or --device NAME|validate;${SM_FIT_DATA}/too_few.csv"
    "rank|phase infer: rank-deficient system: rank 2 for 4 coefficients|fit;${SM_FIT_DATA}/rank_deficient.csv"
    "loo_one_model|leave-one-model-out needs rows of at least two models|fit;${SM_FIT_DATA}/rank_deficient.csv;--cv;loo"
    "loo_fold|leaving out tests/data/fit/tiny_a.ini: phase infer: 1 point for 4 coefficients|fit;${SM_FIT_DATA}/too_few.csv;--cv;loo"
    "no_file|no_such.csv: No such file or directory|fit;no_such.csv"
    "weighting|--weighting squared: expected none or relative|fit;x.csv;--weighting;squared"
    "grad_model|--grad-model tree: expected linear or ring|fit;x.csv;--grad-model;tree"
    "bucket|--bucket-mib 0: expected a positive number|fit;x.csv;--bucket-mib;0"
    "bucket_old_spelling|--bucket-mib 0: expected a positive number|fit;x.csv;--bucket-mb;0"
    # decimal only: strtod alone reads 0x10 as 16 MiB and " 25" as 25
    "bucket_hex|--bucket-mib 0x10: expected a positive number of MiB, in decimal|fit;x.csv;--bucket-mib;0x10"
    "bucket_space|--bucket-mib  25: expected a positive number of MiB, in decimal|fit;x.csv;--bucket-mib; 25"
    "predict_bucket_hex|--bucket-mib 0x10: expected a positive number of MiB, in decimal|predict;resnet50;--device;h100;--batch;32;--bucket-mib;0x10"
    "predict_bucket_inf|--bucket-mib infinity: expected a positive number of MiB, in decimal|predict;resnet50;--device;h100;--batch;32;--bucket-mib;infinity"
    "form|--form paleo: expected dispatch or convmeter|fit;x.csv;--form;paleo"
    "precision|--precision fp8: expected fp32, tf32, fp16 or bf16|fit;x.csv;--precision;fp8"
    "cv|--cv kfold: expected loo|fit;x.csv;--cv;kfold"
    "predict_batch|give --batch B (the per-device batch), --max-batch|predict;${SM_FIT_DATA}/tiny_a.ini"
    "predict_batch_zero|--batch 0: expected an integer from 1|predict;${SM_FIT_DATA}/tiny_a.ini;--batch;0"
    "predict_coeffs|unknown coefficient file 'no_such_coeffs'|predict;${SM_FIT_DATA}/tiny_a.ini;--batch;1;--coeffs;no_such_coeffs"
    "predict_term|bad_coeffs_term.ini:25: [fwd] c2_weights: expected c2_inputs here|predict;${SM_FIT_DATA}/tiny_a.ini;--batch;1;--coeffs;${SM_FIT_DATA}/bad_coeffs_term.ini"
    "predict_value|bad_coeffs_value.ini:21: c4_intercept = soon: expected a finite number|predict;${SM_FIT_DATA}/tiny_a.ini;--batch;1;--coeffs;${SM_FIT_DATA}/bad_coeffs_value.ini"
    "predict_not_coeffs|tiny_a.ini:5: unknown section [network]|predict;${SM_FIT_DATA}/tiny_a.ini;--batch;1;--coeffs;${SM_FIT_DATA}/tiny_a.ini"
    "predict_model|unknown model 'no_such_net'|predict;no_such_net;--batch;1;--coeffs;${SM_FIT_DATA}/tiny_coeffs.ini"
    # t_fwd = 1e-6 F - 1 with F = 38,934 (cli_predict_hand: 0.078868 at batch 2 = 2e-6 F + 0.001)
    "predict_negative|predicts t_fwd = -0.961066 s for fit_tiny_a at batch 1|predict;${SM_FIT_DATA}/tiny_a.ini;--batch;1;--coeffs;${SM_FIT_DATA}/negative_coeffs.ini"
    # t_fwd = 1e-6 F - 1 with F = 38,934 (cli_predict_hand: 0.078868 at batch 2 = 2e-6 F + 0.001)
    "predict_negative_block|not a physical time|predict;${SM_FIT_DATA}/tiny_a.ini;--batch;1;--per-block;--coeffs;${SM_FIT_DATA}/negative_coeffs.ini"
    "validate_negative|not a physical time|validate;${SM_FIT_DATA}/validate_hand.csv;--coeffs;${SM_FIT_DATA}/negative_coeffs.ini"
    "predict_families|bad_families.ini:16: families = cnn,gan: expected names among cnn|predict;${SM_FIT_DATA}/tiny_a.ini;--batch;1;--coeffs;${SM_FIT_DATA}/bad_families.ini"
    "predict_ring_names|bad_coeffs_ring.ini:21: [grad] c2_ring_bytes: expected c2_intra_bytes here|predict;${SM_FIT_DATA}/tiny_a.ini;--batch;1;--coeffs;${SM_FIT_DATA}/bad_coeffs_ring.ini")
  string(REPLACE "|" ";" parts "${case}")
  list(GET parts 0 name)
  list(GET parts 1 message)
  list(SUBLIST parts 2 -1 args)
  add_test(NAME cli_fit_bad_${name} COMMAND ${SM_FIT_CLI} fails "${message}" ${SCALEMETER_BIN} ${args}
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
endforeach()

# predict with hand-written coefficients, tiny_a at 8x8 (F = 38934, I = 192, O = 256, L = 2),
# batch 2, dataset 1000:
#   t_infer = 2 (1e-6 F + 1e-5 I) + 0.002 = 2 (0.038934 + 0.00192) + 0.002 = 0.083708
#   t_fwd   = 2 (1e-6 F) + 0.001 = 0.078868        t_bwd = 2 (2e-6 F) + 0.002 = 0.157736
#   t_grad  = 0.0005 L = 0.001                     t_step = 0.237604
#   t_epoch = 1000 / 2 x 0.237604 = 118.802        images_per_s = 2 / 0.237604 = 8.41737
# Two multi-device rows cannot separate communication from the rest: the fit still succeeds,
# with grad as measured, and says so (a calibration that measured must not be lost).
add_test(NAME cli_fit_too_few_grad_succeeds
  COMMAND ${SCALEMETER_BIN} fit ${SM_FIT_DATA}/too_few_grad.csv
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(cli_fit_too_few_grad_succeeds PROPERTIES PASS_REGULAR_EXPRESSION
  "cannot separate the communication terms of grad")
# validate: the same hand-written coefficients against one measured t_infer of 0.1 s:
#   predicted 0.083708 (above), |0.083708 - 0.1| / 0.1 = 0.16292, ratio 0.83708; R2 of one
#   row is not known: empty
add_test(NAME cli_validate_hand
  COMMAND ${SCALEMETER_BIN} validate ${SM_FIT_DATA}/validate_hand.csv
          --coeffs ${SM_FIT_DATA}/tiny_coeffs.ini --format csv
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(cli_validate_hand PROPERTIES PASS_REGULAR_EXPRESSION
  "infer,overall,1,0.16292,0.016292,,0.83708\n")
add_test(NAME cli_predict_hand
  COMMAND ${SCALEMETER_BIN} predict ${SM_FIT_DATA}/tiny_a.ini --coeffs ${SM_FIT_DATA}/tiny_coeffs.ini
          --batch 2 --dataset 1000 --format json
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(cli_predict_hand PROPERTIES PASS_REGULAR_EXPRESSION
  "\"t_infer\": 0.083708, \"t_fwd\": 0.078868, \"t_bwd\": 0.157736, \"t_grad\": 0.001, \"t_step\": 0.237604, \"t_epoch\": 118.802, \"images_per_s\": 8.41737, \"mfu\": null, \"warning\": null")
# 2 nodes x 4 devices after a single-device calibration: a warning, and t_grad stays c1 L
add_test(NAME cli_predict_warns_devices
  COMMAND ${SM_FIT_CLI} warns "batch 2 on 2 nodes x 4 devices: the calibration saw single-device runs only: t_grad on several devices"
          ${SCALEMETER_BIN} predict ${SM_FIT_DATA}/tiny_a.ini --coeffs ${SM_FIT_DATA}/tiny_coeffs.ini
          --batch 2 --nodes 2 --gpus-per-node 4
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
# the hierarchical ring form (tests/data/fit/ring_coeffs.ini), tiny_a (W = 310, 4W = 1240 bytes,
# k = ceil(1240 / 25 MiB) = 1, L = 2) on 2 nodes of 4 devices:
#   intra bytes 2 x 3/4 x 1240 = 1860     inter bytes 2 x 1/2 x 1240 / 4 = 310
#   intra steps 2 x 3 x 1 = 6             inter steps 2 x 1 x 1 = 2
#   t_grad = 0.0005 x 2 + 1e-9 x 1860 + 1e-8 x 310 + 1e-6 x 6 + 1e-5 x 2
#          = 0.001 + 1.86e-6 + 3.1e-6 + 6e-6 + 2e-5 = 0.00103096
add_test(NAME cli_predict_ring_hand
  COMMAND ${SCALEMETER_BIN} predict ${SM_FIT_DATA}/tiny_a.ini --coeffs ${SM_FIT_DATA}/ring_coeffs.ini
          --batch 2 --nodes 2 --gpus-per-node 4 --format json
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(cli_predict_ring_hand PROPERTIES PASS_REGULAR_EXPRESSION
  "\"t_grad\": 0.00103096, .*\"warning\": null")
# rows of several devices whose step is no longer than t_fwd + t_bwd have no gradient phase:
# lines 7 (0.030 < 0.011 + 0.020) and 9 (0.046 = 0.016 + 0.030) are named once, lines 8 and 10
# (0.045 > 0.038, 0.050 > 0.046) are not
add_test(NAME cli_fit_warns_impossible_steps
  COMMAND ${SM_FIT_CLI} warns "impossible_steps.csv: 2 rows of several devices (lines 7, 9) have t_step <= t_fwd + t_bwd"
          ${SCALEMETER_BIN} fit ${SM_FIT_DATA}/impossible_steps.csv
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
# a ring fit of one node has no inter-node terms: asked about 2 nodes, predict warns
add_test(NAME cli_predict_warns_nodes
  COMMAND ${SM_FIT_CLI} warns "batch 2 on 2 nodes x 4 devices: the calibration saw single-node runs only: t_grad on several nodes leaves out the inter-node"
          ${SCALEMETER_BIN} predict ${SM_FIT_DATA}/tiny_a.ini
          --coeffs ${SM_FIT_DATA}/ring_one_node_coeffs.ini --batch 2 --nodes 2 --gpus-per-node 4
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
# per block: the blocks of tiny_a share the intercept 0.001 by FLOPs and add up to t_fwd
add_test(NAME cli_predict_per_block
  COMMAND ${SCALEMETER_BIN} predict ${SM_FIT_DATA}/tiny_a.ini --coeffs ${SM_FIT_DATA}/tiny_coeffs.ini
          --batch 1 --per-block --format json
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(cli_predict_per_block PROPERTIES PASS_REGULAR_EXPRESSION
  "\"per_block\": \\[\n  {\"name\": \"conv1\", \"t_fwd\": [0-9.e-]+},\n  {\"name\": \"relu\"")

# The shipped calibration: the keys of the JSON, and times that grow with the batch.
add_test(NAME cli_predict_default_json
  COMMAND ${SCALEMETER_BIN} predict resnet18 --batch 8 --format json
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(cli_predict_default_json PROPERTIES PASS_REGULAR_EXPRESSION
  "^{\"model\": \"resnet18\", \"coeffs\": \"[^\"]+\", \"precision\": \"fp32\", \"shard\": \"none\", \"checkpoint\": \"none\", \"kv_cache\": false, \"optimizer\": \"momentum\", \"batch\": 8, \"accumulate\": 1, \"nodes\": 1, \"gpus_per_node\": 1, \"image\": 224, \"dataset\": 1281167, \"t_infer\": [0-9.e-]+, \"t_fwd\": [0-9.e-]+, \"t_bwd\": [0-9.e-]+, \"t_grad\": [0-9.e-]+, \"t_step\": [0-9.e-]+, \"t_epoch\": [0-9.e+-]+, \"images_per_s\": [0-9.e+-]+, \"mfu\": null, \"warning\": null, \"memory\": {[^}]*\"capacity\": null, \"fits\": null}, \"memory_infer\": {[^}]*}}\n$")
foreach(key t_step t_infer t_fwd t_bwd)
  add_test(NAME cli_predict_default_grows_${key}
    COMMAND ${SM_FIT_CLI} grows ${key} 1,2,4,8,16,64 ${SCALEMETER_BIN} predict resnet50 --image 128
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
endforeach()

# fit and its validation on the synthetic set of test_fit_loo (only t_grad measured).
add_test(NAME cli_fit_loo_json
  COMMAND ${SCALEMETER_BIN} fit ${CMAKE_CURRENT_BINARY_DIR}/fit_loo.csv --cv loo --format json
          --weighting none --form convmeter
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
# test_fit_loo writes fit_loo.csv, test_fit fit_exact.csv: fixtures, so that either CLI test
# run alone (ctest -R) runs its writer first
set_tests_properties(test_fit_loo PROPERTIES FIXTURES_SETUP fit_loo_csv)
set_tests_properties(test_fit PROPERTIES FIXTURES_SETUP fit_exact_csv)
set_tests_properties(cli_fit_loo_json PROPERTIES FIXTURES_REQUIRED fit_loo_csv PASS_REGULAR_EXPRESSION
  "\"phases\": {\n  \"grad\": {\"overall\": {\"mape\": [0-9.e-]+, \"rmse\": [0-9.e-]+, \"nrmse\": [0-9.e-]+, \"r2\": [0-9.e-]+, \"n\": 4}, \"per_model\": {\n    \"tests/data/fit/tiny_a.ini\": {\"mape\": 0.173333, \"rmse\": 0.0617738, \"nrmse\": 1.02956, \"r2\": -3.24, \"n\": 2},")
add_test(NAME cli_fit_writes_coeffs
  COMMAND ${SCALEMETER_BIN} fit ${CMAKE_CURRENT_BINARY_DIR}/fit_exact.csv
          -o ${CMAKE_CURRENT_BINARY_DIR}/fit_exact.ini --device-name "test box" --format json
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
# c1_flops is 2.5e-10 to the last few bits: either side of it, as the machine's BLAS rounds
set_tests_properties(cli_fit_writes_coeffs PROPERTIES FIXTURES_REQUIRED fit_exact_csv PASS_REGULAR_EXPRESSION
  "\"device\": \"test box\".*\"multi_device\": true.*\"fwd\": {\"coefficients\": {\"c1_flops\": 2\\.(50000000000|49999999999)[0-9]*e-10")
# without --device-name, the machine the rows name (bench writes the GPU's name)
add_test(NAME cli_fit_device_from_csv
  COMMAND ${SCALEMETER_BIN} fit configs/calibrations/h100-pytorch-tf32.csv --format json
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(cli_fit_device_from_csv PROPERTIES
  PASS_REGULAR_EXPRESSION "\"device\": \"NVIDIA H100 80GB HBM3\"")
add_test(NAME cli_fit_help COMMAND ${SCALEMETER_BIN} fit --help)
set_tests_properties(cli_fit_help PROPERTIES PASS_REGULAR_EXPRESSION "usage: scalemeter fit RUNS.csv")
add_test(NAME cli_predict_help COMMAND ${SCALEMETER_BIN} predict --help)
set_tests_properties(cli_predict_help PROPERTIES PASS_REGULAR_EXPRESSION
  "intercept c4 shared out over the blocks")

# The shipped H100 calibrations answer by name and say their precision (tools/accuracy_report.py
# writes them from configs/calibrations/*.csv).
foreach(precision fp32 tf32 bf16)
  add_test(NAME cli_predict_h100_${precision}
    COMMAND ${SCALEMETER_BIN} predict resnet50 --batch 64 --coeffs h100-pytorch-${precision}
            --format json
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(cli_predict_h100_${precision} PROPERTIES PASS_REGULAR_EXPRESSION
    "\"precision\": \"${precision}\"")
endforeach()

# An epoch is whole steps: one sample with a batch of 2 still takes one step (t_step 0.237604,
# cli_predict_hand); 2^49 samples take 2^48 steps = 6.688e13 s = 7.74e8 days, printed with unit.
add_test(NAME cli_predict_epoch_one_step
  COMMAND ${SCALEMETER_BIN} predict ${SM_FIT_DATA}/tiny_a.ini --coeffs ${SM_FIT_DATA}/tiny_coeffs.ini
          --batch 2 --dataset 1 --format json
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(cli_predict_epoch_one_step PROPERTIES PASS_REGULAR_EXPRESSION
  "\"t_step\": 0.237604, \"t_epoch\": 0.237604,")
add_test(NAME cli_predict_epoch_huge_unit
  COMMAND ${SCALEMETER_BIN} predict ${SM_FIT_DATA}/tiny_a.ini --coeffs ${SM_FIT_DATA}/tiny_coeffs.ini
          --batch 2 --dataset 562949953421312
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(cli_predict_epoch_huge_unit PROPERTIES PASS_REGULAR_EXPRESSION
  "t_epoch +7.74e\\+08 d ")

# A configuration measured twice (validate_hand.csv's row repeated): used, and said
add_test(NAME cli_validate_repeated_rows
  COMMAND sh -c "\"$0\" validate \"$1\" --coeffs \"$2\" --format csv 2>&1" ${SCALEMETER_BIN}
          ${SM_FIT_DATA}/repeated_rows.csv ${SM_FIT_DATA}/tiny_coeffs.ini
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(cli_validate_repeated_rows PROPERTIES PASS_REGULAR_EXPRESSION
  "repeated_rows.csv:3: the configuration of line 2 measured again \\(1 such row\\)(.|\n)*infer,overall,2,0.16292")
# Time to train: 3 epochs of 500 steps of 0.237604 s (cli_predict_hand) = 356.406 s
add_test(NAME cli_predict_epochs
  COMMAND ${SCALEMETER_BIN} predict ${SM_FIT_DATA}/tiny_a.ini --coeffs ${SM_FIT_DATA}/tiny_coeffs.ini
          --batch 2 --dataset 1000 --epochs 3 --format json
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(cli_predict_epochs PROPERTIES PASS_REGULAR_EXPRESSION
  "\"t_epoch\": 118.802, \"images_per_s\": 8.41737, \"mfu\": null, \"epochs\": 3, \"t_train\": 356.406,")

# A coefficient file that cannot be written whole (here: over a 1 KiB file-size limit, as on a
# full disk) is an error, and the file that was there before is left as it was, not truncated.
add_test(NAME cli_fit_write_fails_whole
  COMMAND sh -c "d=$(mktemp -d) && echo previous >\"$d/c.ini\" && (trap '' XFSZ; ulimit -f 2; \"$0\" fit \"$1\" --weight-term -o \"$d/c.ini\" >/dev/null 2>\"$d/err\"); rc=$?; echo \"rc=$rc $(cat \"$d/c.ini\") $(ls \"$d\" | tr '\\n' ' ')$(cat \"$d/err\")\"; rm -rf \"$d\""
          ${SCALEMETER_BIN} ${PROJECT_SOURCE_DIR}/configs/calibrations/cpu-amd-epyc-1thread.csv)
set_tests_properties(cli_fit_write_fails_whole PROPERTIES PASS_REGULAR_EXPRESSION
  "rc=1 previous c.ini err scalemeter fit: [^ ]*/c.ini: write error: File too large \\(nothing written\\)")

# Extrapolation that a prediction warns about (on stderr; the result is still printed): a family
# of network the calibration never saw (the shipped CPU default has CNNs only), an image size
# outside its range (64 to 224); none inside it.
add_test(NAME cli_predict_warns_family COMMAND ${SCALEMETER_BIN} predict vit_b_16 --batch 1)
set_tests_properties(cli_predict_warns_family PROPERTIES PASS_REGULAR_EXPRESSION
  "warning: vit_b_16: the calibration was fitted on cnn networks only, and the layers of transformer networks cost differently.*t_step")
add_test(NAME cli_predict_warns_image COMMAND ${SCALEMETER_BIN} predict resnet18 --batch 1 --image 512)
set_tests_properties(cli_predict_warns_image PROPERTIES PASS_REGULAR_EXPRESSION
  "warning: resnet18: image 512 is outside the calibrated range \\(64 to 224\\): times extrapolate")
add_test(NAME cli_predict_no_warning_inside COMMAND ${SCALEMETER_BIN} predict resnet18 --batch 8 --image 128)
set_tests_properties(cli_predict_no_warning_inside PROPERTIES FAIL_REGULAR_EXPRESSION "warning")
add_test(NAME cli_curve_warns_family
  COMMAND ${SCALEMETER_BIN} curve vit_b_16 --coeffs h100-pytorch-tf32 --batch 8 --nodes 1 --format csv)
set_tests_properties(cli_curve_warns_family PROPERTIES PASS_REGULAR_EXPRESSION
  "warning: vit_b_16: the calibration was fitted on cnn networks only, and the layers of transformer networks cost differently")
sm_add_c_test(test_energy test_energy.c ${CMAKE_CURRENT_BINARY_DIR})
# energy as predict and curve print it: K micro-batches' passes K times and the gradients once,
# the idle power over the step printed, and what physics does not allow said (the energy audit)
sm_add_python_test(cli_energy test_energy_cli.py ${SCALEMETER_BIN})

# Energy written by hand (tests/data/fit/energy_coeffs.ini: tiny_coeffs.ini, 100 W idle) for
# tiny_a at batch 2 (F = 38,934, L = 2; times of cli_predict_hand), dataset 1000, 3 epochs:
#   e_infer = 100 x 0.083708 + 1e-7 x 2 x 38,934 + 0.5              = 8.8785868 J
#   e_step  = 100 x 0.237604 + 2e-7 x 2 x 38,934 + 1 + 0.25 x 2     = 25.2759736 J
#   e_epoch = 500 steps x 25.2759736 = 12,637.9868 J; 3 epochs 37,913.9604 J
#   power   = 25.2759736 / 0.237604 = 106.379 W
add_test(NAME cli_predict_energy
  COMMAND ${SCALEMETER_BIN} predict ${SM_FIT_DATA}/tiny_a.ini --coeffs ${SM_FIT_DATA}/energy_coeffs.ini
          --batch 2 --dataset 1000 --epochs 3 --format json
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(cli_predict_energy PROPERTIES PASS_REGULAR_EXPRESSION
  "\"e_infer_j\": 8.87859, \"e_step_j\": 25.276, \"e_epoch_j\": 12638, \"power_w\": 106.379, \"e_train_j\": 37914, \"memory\": {")
# curve at 1 and 2 nodes: on 2 the job's energy per step and its power are twice a device's
# (50.5519 J, 212.757 W), an epoch's energy the same (250 steps)
add_test(NAME cli_curve_energy
  COMMAND ${SCALEMETER_BIN} curve ${SM_FIT_DATA}/tiny_a.ini --coeffs ${SM_FIT_DATA}/energy_coeffs.ini
          --batch 2 --nodes 1,2 --dataset 1000 --format csv
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(cli_curve_energy PROPERTIES PASS_REGULAR_EXPRESSION
  "e_step_j,power_w,e_epoch_j,mfu,memory,memory_capacity,fits\n[^\n]*,25.276,106.379,12638,[^\n]*\n[^\n]*,50.5519,212.757,12638,[^\n]*\n")
# the tables give the power in watts, then kilowatts: 106.379 W on one device, 128 x that =
# 13,616.5 W on 128
add_test(NAME cli_curve_energy_table
  COMMAND ${SCALEMETER_BIN} curve ${SM_FIT_DATA}/tiny_a.ini --coeffs ${SM_FIT_DATA}/energy_coeffs.ini
          --batch 2 --nodes 1,128 --dataset 1000
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(cli_curve_energy_table PROPERTIES PASS_REGULAR_EXPRESSION
  " 1 +1 [^\n]* 106\\.4 W [^\n]*\n[^\n]* 128 +128 [^\n]* 13\\.6 kW ")
add_test(NAME cli_predict_energy_table
  COMMAND ${SCALEMETER_BIN} predict ${SM_FIT_DATA}/tiny_a.ini --coeffs ${SM_FIT_DATA}/energy_coeffs.ini
          --batch 2 --nodes 128 --dataset 1000
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(cli_predict_energy_table PROPERTIES PASS_REGULAR_EXPRESSION
  "power +13\\.6 kW +average over a step")
add_test(NAME cli_fit_bad_energy_field
  COMMAND ${SM_FIT_CLI} fails "bad_energy.csv:2: energy_j 'lots' is not a number of joules"
          ${SCALEMETER_BIN} fit ${SM_FIT_DATA}/bad_energy.csv
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
add_test(NAME cli_fit_bad_idle_watts
  COMMAND ${SM_FIT_CLI} fails "--idle-watts -1: expected watts from 0"
          ${SCALEMETER_BIN} fit ${SM_FIT_DATA}/validate_hand.csv --idle-watts -1
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
add_test(NAME cli_predict_bad_idle_watts
  COMMAND ${SM_FIT_CLI} fails "bad_energy_idle.ini:15: idle_watts = -5: expected watts from 0 to 1000000"
          ${SCALEMETER_BIN} predict ${SM_FIT_DATA}/tiny_a.ini --batch 1
          --coeffs ${SM_FIT_DATA}/bad_energy_idle.ini
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
# leave-one-model-out where one network's leave-out fit cannot separate the terms: the others
# are validated, that one is named, and the command succeeds (a calibration that measured and
# fitted must not fail: issue 17)
add_test(NAME cli_fit_loo_one_unseparable
  COMMAND sh -c "\"$0\" fit \"$1\" --cv loo --format json 2>&1" ${SCALEMETER_BIN}
          ${SM_FIT_DATA}/loo_one_unseparable.csv
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(cli_fit_loo_one_unseparable PROPERTIES PASS_REGULAR_EXPRESSION
  "could not validate 1 of 3 networks \\(tests/data/fit/tiny_a.ini\\)(.|\n)*\"not_validated\": \\[\"tests/data/fit/tiny_a.ini\"\\]")

# The default weight term is chosen by held-out networks, and fit says which way: in on measured
# CPU runs (each pass reads the weights from DRAM), out on scalemeter's own H100 runs.
add_test(NAME cli_fit_weight_term_in
  COMMAND ${SCALEMETER_BIN} fit tests/data/scaling/cpu-16-ranks-1-to-4.csv -o /dev/null
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(cli_fit_weight_term_in PROPERTIES PASS_REGULAR_EXPRESSION
  "the weight term \\(cw W per pass\\) is in: held-out MAPE 0\\.[0-9]+ with it, 0\\.[0-9]+ without.*--no-weight-term leaves it out")
add_test(NAME cli_fit_weight_term_out
  COMMAND ${SCALEMETER_BIN} fit configs/calibrations/h100-scalemeter-fp32.csv -o /dev/null
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(cli_fit_weight_term_out PROPERTIES PASS_REGULAR_EXPRESSION
  "the weight term \\(cw W per pass\\) is out: .*--weight-term puts it in")

# -o naming something other than a regular file (/dev/null, a pipe) is written in place, never
# renamed over: the device stays a device.
add_test(NAME cli_fit_output_device_kept
  COMMAND sh -c "\"$0\" fit \"$1\" -o /dev/null >/dev/null 2>&1 && test -c /dev/null && test ! -e /dev/null.tmp && echo kept"
          ${SCALEMETER_BIN} ${PROJECT_SOURCE_DIR}/tests/data/scaling/cpu-16-ranks-1-to-4.csv)
set_tests_properties(cli_fit_output_device_kept PROPERTIES PASS_REGULAR_EXPRESSION "^kept")

# The shipped calibrations are what fit makes of their CSVs today (refit by
# tools/accuracy_report.py): a network's counts changed since would make them stale.
sm_add_python_test(shipped_calibrations_current test_shipped_calibrations.py ${SCALEMETER_BIN})

# validate over rows in any order: each network loaded once, the same report, the first
# failing row of the file named, rows predicted not to fit said in the file's order
# fit -o and --device-out: both files or neither, whichever fails
sm_add_python_test(cli_fit_two_outputs test_fit_two_outputs.py ${SCALEMETER_BIN})
sm_add_python_test(validate_row_order test_validate_cli.py ${SCALEMETER_BIN})
# validate over rows of 20,000 networks: grouped once, each network's own errors, in the
# order the file first names them
sm_add_python_test(validate_many_models test_validate_many_models_cli.py ${SCALEMETER_BIN})
# validate --per-row: every row, measured as the CSV, predicted as predict, the summary's
# medians from its ratios
sm_add_python_test(validate_per_row test_validate_per_row.py ${SCALEMETER_BIN})
# a CSV record quoted over 120,000 lines: read as one row, the lines after it counted right
sm_add_python_test(csv_multiline_record test_csv_multiline_cli.py ${SCALEMETER_BIN})

# A runs CSV's relative model paths: beside the CSV first, read from any folder; and bench
# writes them so, whose Open MPI's own allocations LeakSanitizer reports (as bench.cmake)
sm_add_python_test(cli_runs_model_paths test_runs_model_paths.py ${SCALEMETER_BIN})
if(SCALEMETER_SANITIZE)
  set_tests_properties(cli_runs_model_paths PROPERTIES ENVIRONMENT "ASAN_OPTIONS=detect_leaks=0")
endif()
# validate --per-row of the hand-written row: its line, configuration, measured 0.1 s and the
# hand-derived 0.083708 (cli_validate_hand), the phases it does not measure empty beside
# cli_predict_hand's times, no energy
add_test(NAME cli_validate_per_row_hand
  COMMAND ${SCALEMETER_BIN} validate ${SM_FIT_DATA}/validate_hand.csv
          --coeffs ${SM_FIT_DATA}/tiny_coeffs.ini --per-row --format csv
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(cli_validate_per_row_hand PROPERTIES PASS_REGULAR_EXPRESSION
  "\n2,tests/data/fit/tiny_a.ini,8,2,1,1,fp32,0.1,0.083708,,0.078868,,0.157736,,0.001,,0.237604,,,,\n")
# tools/cpu_calibration_tables.py --check: docs/calibration.md's tables of the shipped CPU
# calibration are what the fits give now (they had drifted from the fit's dispatch form)
sm_add_python_test(tool_cpu_calibration_tables ../tools/cpu_calibration_tables.py --check
  --bin ${SCALEMETER_BIN})
# bench's allreduce and bucket_mib columns read back: the ring model's bucket from the rows,
# two all-reduces or bucket sizes refused in one fit, and kept apart as configurations
sm_add_python_test(runs_allreduce test_runs_allreduce.py ${SCALEMETER_BIN})
