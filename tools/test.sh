#!/bin/sh
# The README's second command: install what the tests need, build (warnings are errors) and
# run every test with ctest. --sanitize builds and tests with AddressSanitizer and
# UndefinedBehaviorSanitizer in build-sanitize/ instead.
set -eu
cd "$(dirname "$0")/.."
tools/install-deps.sh --test
dir=build
flags="-DSCALEMETER_WERROR=ON"
if [ "${1:-}" = "--sanitize" ]; then
    dir=build-sanitize
    flags="$flags -DSCALEMETER_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug"
fi
cmake -S . -B "$dir" $flags >/dev/null
cmake --build "$dir" -j"$(nproc)"
cd "$dir"
ctest --output-on-failure -j"$(nproc)"
