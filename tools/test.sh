#!/bin/sh
# The README's second command: install what the tests need, build (warnings are errors) and
# run every test with ctest. --sanitize builds and tests with AddressSanitizer and
# UndefinedBehaviorSanitizer, float-cast-overflow included, in build-sanitize/ instead, with
# clang (CC=gcc tools/test.sh --sanitize: with gcc, in build-sanitize-gcc/).
set -eu
cd "$(dirname "$0")/.."
tools/install-deps.sh --test
dir=build
flags="-DSCALEMETER_WERROR=ON"
if [ "${1:-}" = "--sanitize" ]; then
    # clang: its UBSan checks more than gcc's (gcc's leaves out float-cast-overflow unless
    # named, as CMakeLists.txt now does for both)
    export CC="${CC:-clang}"
    dir=build-sanitize
    [ "$CC" = clang ] || dir=build-sanitize-$(basename "$CC")
    flags="$flags -DSCALEMETER_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug"
fi
cmake -S . -B "$dir" $flags >/dev/null
cmake --build "$dir" -j"$(nproc)"
cd "$dir"
ctest --output-on-failure -j"$(nproc)"
