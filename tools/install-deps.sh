#!/bin/sh
# Installs scalemeter's build dependencies from Debian's packages (run as root, or with sudo
# available). With --test, also what the test suite uses: PyTorch's torchvision for the
# exporter test, Chromium for rendering the SVG charts, clang for the fuzzers, clang-format for
# the formatting check, locales for a German locale (tests/test_locale.c), and Slurm with munge for the test that starts a one-node Slurm
# (tests/test_slurm.sh; it starts its own daemons and uses nothing of the packages'
# configuration).
set -eu
packages="cmake make gcc pkg-config libinih-dev libopenblas-dev liblapacke-dev libopenmpi-dev openmpi-bin"
if [ "${1:-}" = "--test" ]; then
    packages="$packages python3 python3-torchvision chromium clang clang-format locales slurmctld slurmd slurm-client munge"
fi
missing=""
for p in $packages; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
        missing="$missing $p"
done
[ -z "$missing" ] && exit 0
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "installing:$missing"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing
