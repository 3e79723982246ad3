#!/bin/sh
# The install works for a program built against it: `cmake --install` into a temporary prefix,
# then tests/consumer/consumer.c built (a) through find_package(scalemeter CONFIG) and (b) with
# `cc $(pkg-config --cflags --libs scalemeter)`, each run on the installed resnet18, whose
# weights must be torchvision's published 11,689,512 parameters.
# usage: test_install_consumer.sh BUILD_DIR SOURCE_DIR SANITIZE [CC CMAKE PKG_CONFIG VERSION]
# SANITIZE ON: the library is built with ASan/UBSan, so the consumer must be too.
set -eu
build=$1 src=$2 sanitize=${3:-OFF} cc=${4:-cc} cmake=${5:-cmake} pkgconfig=${6:-pkg-config}
version=${7:-}
expected=11689512
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

prefix=$dir/prefix
out=$("$cmake" --install "$build" --prefix "$prefix" 2>&1) || fail "cmake --install: $out"
model=$prefix/share/scalemeter/models/resnet18.ini
[ -f "$model" ] || fail "the install has no $model"
pcfile=$(find "$prefix" -path '*/pkgconfig/scalemeter.pc' | head -n 1)
[ -n "$pcfile" ] || fail "the install has no pkgconfig/scalemeter.pc"
pcdir=$(dirname "$pcfile")
libdir=$(dirname "$pcdir")
[ -n "$(find "$libdir/cmake/scalemeter" -name scalemeterConfig.cmake 2>/dev/null)" ] ||
    fail "the install has no $libdir/cmake/scalemeter/scalemeterConfig.cmake"

san_flags=
case $sanitize in
    ON | on | 1 | TRUE | true | YES | yes) san_flags="-fsanitize=address,undefined -fno-omit-frame-pointer" ;;
esac
# Where the plugins come from is the library's business: nothing from the caller's environment.
unset SCALEMETER_PLUGIN_PATH

check() { # check WHAT OUTPUT
    [ "$2" = "resnet18 weights $expected" ] ||
        fail "$1: expected 'resnet18 weights $expected', got '$2'"
}

# (a) CMake package
out=$("$cmake" -S "$src/tests/consumer" -B "$dir/consumer-cmake" -DCMAKE_PREFIX_PATH="$prefix" \
    -DCMAKE_C_COMPILER="$cc" -DCMAKE_C_FLAGS="$san_flags" -DCMAKE_EXE_LINKER_FLAGS="$san_flags" \
    -DCMAKE_FIND_PACKAGE_PREFER_CONFIG=ON 2>&1) ||
    fail "find_package(scalemeter CONFIG) consumer does not configure: $out"
out=$("$cmake" --build "$dir/consumer-cmake" 2>&1) ||
    fail "find_package(scalemeter CONFIG) consumer does not build: $out"
out=$("$dir/consumer-cmake/consumer" "$model" 2>&1) ||
    fail "find_package(scalemeter CONFIG) consumer failed: $out"
check "find_package(scalemeter CONFIG) consumer" "$out"

# (b) pkg-config, with nothing of the build tree or the system's pkg-config folders in reach
PKG_CONFIG_PATH=$pcdir PKG_CONFIG_LIBDIR=$pcdir
export PKG_CONFIG_PATH PKG_CONFIG_LIBDIR
modversion=$("$pkgconfig" --modversion scalemeter 2>&1) ||
    fail "pkg-config --modversion scalemeter: $modversion"
if [ -n "$version" ] && [ "$modversion" != "$version" ]; then
    fail "pkg-config --modversion scalemeter gives '$modversion', the project is $version"
fi
flags=$("$pkgconfig" --cflags --libs scalemeter 2>&1) ||
    fail "pkg-config --cflags --libs scalemeter: $flags"
# $flags and $san_flags are word lists: split on purpose.
# shellcheck disable=SC2086
out=$("$cc" -std=c11 -Wall -Wextra -Wpedantic -Werror $san_flags \
    "$src/tests/consumer/consumer.c" -o "$dir/consumer-pc" $flags 2>&1) ||
    fail "cc \$(pkg-config --cflags --libs scalemeter) does not build the consumer: $out"
out=$(LD_LIBRARY_PATH=$libdir "$dir/consumer-pc" "$model" 2>&1) ||
    fail "pkg-config consumer failed: $out"
check "pkg-config consumer" "$out"

# (c) a layer plugin built against the install as its author would, from the example the install
# ships beside its docs (share/doc/scalemeter: examples/plugin, docs/plugin-abi.md), mish: through
# the CMake package's headers-only target scalemeter::plugin (examples/plugin/CMakeLists.txt)
# and with `cc $(pkg-config --cflags scalemeter)`. Each links nothing of scalemeter and passes
# the installed check-plugin on the example's cases.
example=$(find "$prefix" -path '*/doc/scalemeter/examples/plugin' -type d | head -n 1)
[ -n "$example" ] && [ -f "$example/mish.c" ] && [ -f "$example/cases.ini" ] ||
    fail "the install has no examples/plugin in share/doc/scalemeter"
[ -f "$example/../../docs/plugin-abi.md" ] || fail "the install has no docs/plugin-abi.md beside it"
check_plugin() { # check_plugin WHAT PLUGIN.so
    if readelf -d "$2" 2>/dev/null | grep -q "NEEDED.*libscalemeter"; then
        fail "$1: the plugin links libscalemeter (a plugin links nothing of scalemeter)"
    fi
    out=$("$prefix/bin/scalemeter" check-plugin "$2" --cases "$example/cases.ini" 2>&1) ||
        fail "$1: check-plugin: $out"
    echo "$out" | grep -q "^mish: 3 cases, 1 refusal, 3 gradient checks: all passed$" ||
        fail "$1: check-plugin: $out"
}
out=$("$cmake" -S "$example" -B "$dir/plugin-cmake" -DCMAKE_PREFIX_PATH="$prefix" \
    -DCMAKE_C_COMPILER="$cc" -DCMAKE_FIND_PACKAGE_PREFER_CONFIG=ON 2>&1) ||
    fail "examples/plugin with find_package(scalemeter) does not configure: $out"
out=$("$cmake" --build "$dir/plugin-cmake" 2>&1) ||
    fail "examples/plugin with scalemeter::plugin does not build: $out"
check_plugin "examples/plugin through scalemeter::plugin" "$dir/plugin-cmake/mish.so"
cflags=$("$pkgconfig" --cflags scalemeter 2>&1) || fail "pkg-config --cflags scalemeter: $cflags"
# shellcheck disable=SC2086
out=$("$cc" -std=c11 -O2 -Wall -Wextra -Werror -shared -fPIC $cflags \
    -o "$dir/mish.so" "$example/mish.c" -lm 2>&1) ||
    fail "cc \$(pkg-config --cflags scalemeter) does not build examples/plugin/mish.c: $out"
check_plugin "examples/plugin through pkg-config" "$dir/mish.so"
# A description of the user's own in the installed folder (a fitted one, named h100-fitted
# inside): `devices` listed it by that name, which --device refuses; it lists the file's name.
devices=$prefix/share/scalemeter/configs/devices
sed 's/^name = h100$/name = h100-fitted/' "$devices/h100.ini" >"$devices/mine.ini"
out=$("$prefix/bin/scalemeter" devices --format csv 2>&1) || fail "devices: $out"
echo "$out" | grep -q '^mine,' || fail "devices does not list mine.ini as mine: $out"
echo "$out" | grep -q '^h100-fitted,' && fail "devices lists mine.ini by its name key"
out=$("$prefix/bin/scalemeter" predict resnet18 --device mine --batch 8 2>&1) ||
    fail "predict --device mine, as devices lists it: $out"
echo "1 passed, 0 failed: cmake --install, find_package and pkg-config ($modversion), a plugin through each"
