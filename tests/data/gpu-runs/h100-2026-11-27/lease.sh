#!/bin/sh
# the 2026-11-27 H100 lease, one call: the GPU tests after ABI 14/15, the per-op profiles of
# the H200's networks on the H100 (bf16 first), the fp32 set again with CUDA events
export PYTHONUNBUFFERED=1
o=/tmp/o; rm -rf $o; mkdir -p $o
t0=$(date +%s)
nvidia-smi -q -d CLOCK,POWER,PERFORMANCE > $o/gpu-state.txt 2>&1
timeout 150 tools/gpu-validate.sh --phase test --out $o; echo "test $(($(date +%s)-t0))" >> $o/timing.txt
timeout 230 tools/gpu-validate.sh --phase layers --out $o --points 32x224,128x224 --time-limit 195 \
  --models resnet50,mobilenet_v2,resnext50_32x4d,densenet121,efficientnet_b0,convnext_tiny,vgg11
echo "layers $(($(date +%s)-t0))" >> $o/timing.txt
left=$((500 - ($(date +%s) - t0))); [ $left -gt 150 ] && left=150
timeout $((left + 15)) tools/gpu-validate.sh --phase repeat --repeat-precision fp32 --out $o --time-limit $left
echo "repeat $(($(date +%s)-t0))" >> $o/timing.txt
tar czf $OUT/results.tgz -C $o .
cat $o/timing.txt
grep -E "^gpu-validate.sh: [0-9:]+ (test|layers|repeat|done|GPU)" $o/validate.log
grep -E "passed, .* failed|differs by|CPU kernels only|FAIL" $o/gpu-tests.log | tail -15
awk -F, 'NR>1{print $2}' $o/clocks.csv | sort | uniq -c | sort -rn | head -5
for f in $o/*.csv.gz; do echo "$f $(zcat $f | wc -l)"; done; wc -l $o/*rounds.csv
# The first call's repeat phase was cut off by its timeout before gpu-validate.sh copied the
# rounds to $o (73 rows kept in build-validate/). Call 2, on the same warm machine:
#   tools/gpu-validate.sh --phase repeat --repeat-precision fp32 --out /tmp/o3 --time-limit 95
#   (resumed: 125 rows, round 0 whole and 8 of round 1; validate-2.log, clocks-2.csv)
# Call 3: python3 tools/torch_layer_profile.py --models resnet50,densenet121,vgg11,mobilenet_v2
#   --points 32x224,128x224 --precision fp32 --steps 3 --warmup 3 --time-limit 105
#   (layers-fp32.log; nvidia-smi sampled into clocks-3.csv)
