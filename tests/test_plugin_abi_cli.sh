#!/bin/sh
# A plugin built for another ABI version (here 1) in SCALEMETER_PLUGIN_PATH: a command that
# loads it (`plugins` loads every plugin; a network only those of its types) exits non-zero
# with one line naming the file and both versions; a network that does not use it is refused too,
# saying that the folder's plugins load together.
# usage: test_plugin_abi_cli.sh SCALEMETER PLUGIN_DIR PLUGIN_FILE ABI (plugin.h's version)
set -eu
sm=$1 dir=$2 file=$3 abi=$4
if out=$(SCALEMETER_PLUGIN_PATH=$dir "$sm" plugins 2>&1); then
    echo "FAIL: a plugin of ABI version 1 was accepted: $out"
    exit 1
fi
want="$file: built for plugin ABI version 1, this scalemeter loads versions 2 to $abi"
echo "$out" | grep -qF "$want" || { echo "FAIL: expected '$want' in: $out"; exit 1; }
[ "$(echo "$out" | wc -l)" -eq 1 ] || { echo "FAIL: more than one line: $out"; exit 1; }
# A network that uses none of its types: the folder still loads whole at the first lookup
# (a plugin may be named otherwise than its type), and the message must say that it is the
# folder's plugin that fails, not the layer looked up (resnet18's conv1 was blamed before).
if out=$(SCALEMETER_PLUGIN_PATH=$dir "$sm" metrics resnet18 2>&1); then
    echo "FAIL: metrics ran with a plugin of ABI version 1 in the path: $out"
    exit 1
fi
# It leads with the file and its fault; resnet18's conv1 was blamed first ("...resnet18.ini:5:
# layer conv1: the plugins of SCALEMETER_PLUGIN_PATH load together ...").
want="scalemeter metrics: $want; rebuild it against this scalemeter's headers (from SCALEMETER_PLUGIN_PATH); the plugins of SCALEMETER_PLUGIN_PATH all load at a network's first lookup of a layer type, here layer conv1's 'conv2d' at "
case $out in
"$want"*) ;;
*) echo "FAIL: expected a line starting '$want': $out"; exit 1 ;;
esac
[ "$(echo "$out" | wc -l)" -eq 1 ] || { echo "FAIL: more than one line: $out"; exit 1; }
echo "2 passed, 0 failed"
