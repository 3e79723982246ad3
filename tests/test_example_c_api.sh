#!/bin/sh
# examples/c_api/predict_step.c as its reader runs it: resnet50's weights are torchvision's
# 25,557,032 (sum(p.numel() for p in resnet50().parameters())), and the step it predicts through
# the library is the one `scalemeter predict --device` prints for the same options.
# usage: test_example_c_api.sh PREDICT_STEP SCALEMETER
example=$1
sm=$2
out=$("$example" resnet50 h100 256) || { echo "FAIL: predict_step exited $?"; exit 1; }
echo "$out"
case $out in
*"resnet50: weights 25557032,"*) ;;
*) echo "FAIL: want resnet50's 25557032 weights"; exit 1 ;;
esac
step=$(printf '%s\n' "$out" | sed -n 's/.*t_step \([0-9.e+-]*\) s.*/\1/p')
want=$("$sm" predict resnet50 --device h100 --batch 256 -g 1 --format json |
       sed -n 's/.*"t_step": \([0-9.e+-]*\),.*/\1/p')
if [ -z "$step" ] || [ "$step" != "$want" ]; then
    echo "FAIL: t_step '$step' through the library, '$want' from scalemeter predict"
    exit 1
fi
err=$(mktemp) || exit 1
if "$example" resnet50 no-such-device 8 2>"$err" >/dev/null; then
    echo "FAIL: an unknown device was accepted"
    rm -f "$err"
    exit 1
fi
lines=$(wc -l < "$err")
msg=$(cat "$err")
rm -f "$err"
case $msg in
"predict_step: "*no-such-device*) [ "$lines" -eq 1 ] || { echo "FAIL: $lines lines: $msg"; exit 1; } ;;
*) echo "FAIL: unknown device: '$msg'"; exit 1 ;;
esac
echo "ok: weights, t_step $step, and the unknown device refused in one line"
