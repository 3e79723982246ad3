#!/bin/sh
# The README's second command: install what the tests need, build (warnings are errors) and
# run every test with ctest. --sanitize builds and tests with AddressSanitizer and
# UndefinedBehaviorSanitizer, float-cast-overflow named (gcc's -fsanitize=undefined leaves it
# out), in build-sanitize/ instead. CC=clang tools/test.sh --sanitize runs the suite with clang's
# sanitizers in build-sanitize-clang/, without the CUDA parts: nvcc compiles their host code
# with gcc, whose ASan runtime cannot share a process with clang's.
set -eu
cd "$(dirname "$0")/.."
tools/install-deps.sh --test
dir=build
flags="-DSCALEMETER_WERROR=ON"
if [ "${1:-}" = "--sanitize" ]; then
    export CC="${CC:-gcc}"
    dir=build-sanitize
    flags="$flags -DSCALEMETER_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug"
    if [ "$(basename "$CC")" != gcc ]; then
        dir=build-sanitize-$(basename "$CC")
        flags="$flags -DSCALEMETER_CUDA=OFF"
    fi
fi
cmake -S . -B "$dir" $flags >/dev/null
cmake --build "$dir" -j"$(nproc)"
cd "$dir"
ctest --output-on-failure -j"$(nproc)"
