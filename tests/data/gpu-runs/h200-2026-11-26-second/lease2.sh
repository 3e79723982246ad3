#!/bin/sh
# second call of the 2026-11-26 (second) H200 lease: tests with fp16/bf16, a bf16 bench, the
# missing layer profiles, the third repeat round
export PYTHONUNBUFFERED=1
o=/tmp/o2; rm -rf $o; mkdir -p $o
timeout 180 tools/gpu-validate.sh --phase test --out $o
SCALEMETER_OFFLINE=$PWD/build-validate/pack/scalemeter-offline . build-validate/pack/scalemeter-offline/env.sh
sm=$PWD/build-validate/pack/scalemeter-offline/bin/scalemeter
echo "scalemeter: $sm"
timeout 80 "$sm" bench --backend cuda --precision bf16 --model resnet50,mobilenet_v2,densenet121 \
  --image 224 --batch 32,128 --warmup 3 --reps 5 --min-time 0.2 -o $o/h200-scalemeter-bf16.csv \
  > $o/bench-bf16.log 2>&1; echo "bench bf16 rc $?"
timeout 90 tools/gpu-validate.sh --phase layers --models vgg11 --points 32x224,128x224 --time-limit 60 --out $o
timeout 120 tools/gpu-validate.sh --phase repeat --models resnet50,mobilenet_v2,densenet121 --time-limit 100 --out $o
tar czf $OUT/results2.tgz -C $o .
grep -E "^gpu-validate.sh: (test|layers|repeat|done)" $o/validate.log
grep -E "rounds:|scale 2|SGD steps|passed, .* failed|differs by|CPU kernels only" $o/gpu-tests.log | tail -30
cat $o/h200-scalemeter-bf16.csv 2>/dev/null | cut -d, -f1-10,14,15
tail -3 $o/bench-bf16.log
