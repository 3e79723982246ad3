#!/bin/sh
# the second H100 lease of 2026-11-27, one call: the GPU tests (window_attention v2's fp16
# expectation), per-op profiles at fp16 (none before: Lambda's fp16 ResNet-50 misses), at bf16
# for the networks none profiled, at tf32 on the H100 (none before), then the fp32 set's rounds
export PYTHONUNBUFFERED=1
o=/tmp/o; rm -rf $o; mkdir -p $o
t0=$(date +%s)
el() { echo "$1 $(($(date +%s)-t0))" >> $o/timing.txt; }
nvidia-smi -q -d CLOCK,POWER,PERFORMANCE > $o/gpu-state.txt 2>&1
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu \
  --format=csv,noheader -lms 500 > $o/clocks-all.csv 2>/dev/null & cpid=$!
lscpu > $o/host.txt 2>&1
timeout 150 tools/gpu-validate.sh --phase test --out $o; el test
lp() { # precision models time-limit
  timeout $(($3 + 40)) python3 tools/torch_layer_profile.py --models $2 --points 32x224,128x224 \
    --precision $1 --steps 3 --warmup 3 --time-limit $3 --out $o/layers-$1.csv > $o/layers-$1.log 2>&1
  el "layers-$1 rc $?"; }
lp fp16 resnet50,vgg11,mobilenet_v2,densenet121 70
lp bf16 googlenet,squeezenet1_0,shufflenet_v2_x1_0,regnet_y_400mf,mnasnet1_0 70
lp tf32 resnet50,vgg11,mobilenet_v2,densenet121,convnext_tiny,efficientnet_b0 75
left=$((500 - ($(date +%s) - t0))); [ $left -gt 160 ] && left=160
if [ $left -gt 40 ]; then
  timeout $((left + 10)) tools/gpu-validate.sh --phase repeat --repeat-precision fp32 --out $o/rep \
    --time-limit $((left - 30))
  cp build-validate/h100-pytorch-fp32-rounds.csv $o/fp32-rounds-work.csv 2>/dev/null
fi
el repeat
kill $cpid 2>/dev/null
for f in $o/layers-*.csv; do gzip $f; done
tar czf $OUT/results.tgz -C $o .
cat $o/timing.txt
grep -E "^gpu-validate.sh: [0-9:]+ (test|repeat|done|GPU)" $o/validate.log $o/rep/validate.log
grep -E "passed, .* failed|differs by|CPU kernels only|FAIL|skipped" $o/gpu-tests.log | tail -12
tail -2 $o/layers-*.log
awk -F, '{print $2}' $o/clocks-all.csv | sort | uniq -c | sort -rn | head -4
for f in $o/layers-*.csv.gz; do echo "$f $(zcat $f | wc -l)"; done; wc -l $o/rep/*rounds.csv
# What came back (one call, 482 s of the command, 513 s held): the test phase in 114 s, all
# passed but test_gpu_executor's zoo test (2 of 4417 checks: gpt2 not run, its cross_entropy
# loss has no kernels since a94097c; mobilenet_v2's step-1 loss 4.377508 against the CPU's
# 4.368352, beyond 1e-3 x 7.1: the CPU executor itself spreads 4.354-4.377 over OpenBLAS's
# kernels); window_attention v2's fp16 steps skipped as expected. Profiles: fp16 ResNet-50,
# VGG-11, MobileNet v2; bf16 GoogLeNet, SqueezeNet (both points), ShuffleNet (batch 32); tf32
# ResNet-50, VGG-11, MobileNet v2 (each at the time limit). Repeat: the fp32 set resumed from
# 125 rows to 170 (round 1 further). The SM clock held 1,980 MHz under load (clocks-all.csv).
# Moved into the sources: configs/calibrations/h100-pytorch-layers/{bf16,fp16,tf32}.csv.gz,
# configs/calibrations/h100-pytorch-fp32-rounds.csv.
