#!/bin/sh
# the H200 lease of 2026-11-28, one call: BERT's per-op profiles (which of its kernels run at
# the DRAM's pace), TF32 profiles that time each kernel of the grouped/dense networks the
# transposes tool wants, fp16 5 x 5 depthwise layers (EfficientNet-B0, MobileNet v3) and
# ConvNeXt-T at TF32 for the cuDNN depthwise keys; the H200's clocks and host on the way
export PYTHONUNBUFFERED=1
o=/tmp/o; rm -rf $o; mkdir -p $o
t0=$(date +%s)
el() { echo "$1 $(($(date +%s)-t0))" >> $o/timing.txt; }
nvidia-smi -q -d CLOCK,POWER,PERFORMANCE > $o/gpu-state.txt 2>&1
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu \
  --format=csv,noheader -lms 500 > $o/clocks.csv 2>/dev/null & cpid=$!
lscpu > $o/host.txt 2>&1; python3 -c "import torch; print(torch.__version__, torch.version.cuda, torch.backends.cudnn.version())" >> $o/host.txt 2>&1
lp() { # name precision models points time-limit
  timeout $(($5 + 45)) python3 tools/torch_layer_profile.py --models $3 --points $4 \
    --precision $2 --steps 3 --warmup 3 --time-limit $5 --out $o/layers-$1.csv > $o/layers-$1.log 2>&1
  el "layers-$1 rc $?"; }
lp bert-fp16 fp16 bert_base,bert_large 32x384,96x384 70
lp bert-tf32 tf32 bert_base,bert_large 32x384,96x384 60
lp tf32-more tf32 resnext50_32x4d,densenet121,resnet18 32x224,128x224 90
lp fp16-dw fp16 efficientnet_b0,mobilenet_v3_large 32x224,128x224 60
left=$((490 - ($(date +%s) - t0)))
[ $left -gt 40 ] && lp convnext-tf32 tf32 convnext_tiny 32x224,128x224 $((left - 35))
kill $cpid 2>/dev/null
for f in $o/layers-*.csv; do gzip $f; done
tar czf $OUT/results.tgz -C $o .
cat $o/timing.txt
tail -n 2 $o/layers-*.log
awk -F, '{print $2}' $o/clocks.csv | sort | uniq -c | sort -rn | head -4
for f in $o/layers-*.csv.gz; do echo "$f $(zcat $f | wc -l)"; done
# What came back (317 s of the command, the machine started in about 30 s): every profile
# complete but layers-fp16-dw, which stopped at its time limit after EfficientNet-B0; the SM
# clock held 1,980 MHz under load (clocks.csv). Three more calls on the warm machine:
#   - (174 s) MobileNet v3 large at fp16 (layers-fp16-dw2), ConvNeXt-T at fp32 (both points),
#     ResNet-18, RegNetY-400MF and MnasNet 1.0 at fp16 (layers-fp16-more), each `lp` as above
#     with time limits 60, 60 and the rest of 300 s;
#   - (70 s) `--models mobilenet_v3_large,regnet_y_400mf,mnasnet1_0 --precision tf32`;
#   - (127 s) `--models bert_base,bert_large --points 32x384,96x384` at bf16 and fp32.
# 747 s of device time in all. Merged into configs/calibrations/h200-pytorch-layers/ by
# tools/merge_profiles.py (its README says which file holds what); layers.log holds the logs.
