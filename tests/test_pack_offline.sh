#!/bin/sh
# Checks a tarball of tools/pack-offline.sh (not run by ctest: packing builds a Release tree and
# downloads Debian packages, minutes of work; run it after packing):
#
#   sh tests/test_pack_offline.sh build-offline/scalemeter-offline-x86_64.tar.gz
#
# 1. the tarball holds the binary, its library, the plugins (GPU kernels in them), the zoo,
#    the configs, the GPU tests, env.sh and Open MPI (libmpi, orted, mpirun, its components
#    and help files, PMIx);
# 2. where unshare(1) may make a mount namespace (root), the packed scalemeter runs with this
#    machine's Open MPI, PMIx, OpenBLAS, LAPACKE and inih hidden (their files overmounted by
#    /dev/null): `backends`, `metrics`, a 1-rank `allreduce` without mpirun (Open MPI's
#    singleton, which starts the packed orted), `fit` (LAPACKE, loaded with dlopen),
#    `mpirun -np 2 ... allreduce`, and the GPU tests that need no GPU; and LD_DEBUG shows every
#    MPI and BLAS library loaded from the pack.
# What it cannot show here: the node's own CUDA libraries (PyTorch's) and a GPU. docs/gpu.md.
set -eu
tarball=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
tar xzf "$tarball"
p=scalemeter-offline
fail() { echo "FAILED: $*"; exit 1; }

for f in bin/scalemeter lib/libscalemeter.so.0 env.sh share/scalemeter/models/resnet50.ini \
    share/scalemeter/configs/devices/h100.ini lib/scalemeter/plugins/conv2d.so \
    lib/scalemeter/plugins/conv2d_gpu.so \
    lib/scalemeter/backends/cpu.so \
    bin/test_gpu_executor bin/test_gpu_host bin/test_conformance_gpu bin/test_nvml_energy \
    lib/libfake_nvml.so lib/liblapack.so.3 lib/libblas.so.3 \
    mpi/usr/bin/orted mpi/usr/bin/mpirun mpi/usr/lib/x86_64-linux-gnu/libmpi.so.40 \
    mpi/usr/lib/x86_64-linux-gnu/libopen-pal.so.40 \
    mpi/usr/lib/x86_64-linux-gnu/openmpi/lib/openmpi3/mca_btl_vader.so \
    mpi/usr/lib/x86_64-linux-gnu/pmix2/lib/libpmix.so.2 mpi/usr/share/openmpi/help-mpi-api.txt \
    lib/libopenblas.so.0 lib/libinih.so.1 lib/liblapacke.so.3; do
    [ -e "$p/$f" ] || fail "no $f in the tarball"
done
models=$(ls "$p"/share/scalemeter/models/*.ini | wc -l)
plugins=$(ls "$p"/lib/scalemeter/plugins/*.so | wc -l)
[ "$models" -ge 20 ] || fail "$models models"
[ "$plugins" -ge 30 ] || fail "$plugins plugins"
# a type's GPU kernels are a module of their own beside it (plugin.h), loaded where used
strings "$p/lib/scalemeter/plugins/conv2d_gpu.so" | grep -q cudnnConvolutionForward ||
    fail "conv2d_gpu.so has no GPU kernels"
echo "contents: binary, library, $plugins plugins, $models models, configs, GPU tests, Open MPI"

if ! unshare -m true 2>/dev/null; then
    echo "no mount namespace here (unshare -m): the run without system MPI is not checked"
    exit 0
fi
cat >run.sh <<'RUN'
set -eu
ma=/usr/lib/x86_64-linux-gnu
# hide this machine's copies: every file of the MPI, PMIx, OpenBLAS, LAPACKE and inih packages
for f in $ma/libmpi.so* $ma/libopen-pal.so* $ma/libopen-rte.so* $ma/openmpi/lib/openmpi3/*.so \
    $ma/pmix2/lib/*.so* $ma/pmix2/lib/pmix/*.so $ma/libpmix.so* $ma/libinih.so* \
    $ma/liblapacke.so* $ma/openblas-pthread/*.so* $ma/libopenblas*.so* $ma/libhwloc.so* \
    /usr/bin/orted /usr/bin/orterun; do
    [ -f "$f" ] && [ ! -L "$f" ] && mount --bind /dev/null "$f"
done
cd "$1"
. scalemeter-offline/env.sh
cd scalemeter-offline
scalemeter backends
scalemeter metrics resnet18 | head -3
LD_DEBUG=libs scalemeter allreduce --impl ring --min-bytes 1K --max-bytes 4K --format csv \
    2>ld.log
grep -E 'calling init: .*(libmpi|libopen-pal|libopen-rte|libpmix|libopenblas)' ld.log |
    awk '{ print $NF }' | sort -u >loaded
cat loaded
if grep -v "$1/scalemeter-offline/" loaded; then echo "FAILED: loaded from the system"; exit 1; fi
grep -q libmpi loaded || { echo "FAILED: libmpi not seen loading"; exit 1; }
# fit loads LAPACKE with dlopen, which ldd does not show: it and what it needs come from the
# pack too (a node's own LAPACKE beside the packed OpenBLAS crashed fit in dgemm)
printf 'model,image,batch,nodes,gpus_per_node,t_infer,t_fwd,t_bwd,t_grad,t_step\n' >runs.csv
for m in resnet18 mobilenet_v2 squeezenet1_0; do
    for b in 2 4 8; do
        echo "$m,64,$b,1,1,0.00$b,0.00$b,0.0$b,0.001,0.0$((b + 1))" >>runs.csv
    done
done
LD_DEBUG=libs scalemeter fit runs.csv -o fit.ini 2>fit.log >/dev/null ||
    { grep -v '^ *[0-9]*:' fit.log; echo "FAILED: fit"; exit 1; }
grep -E 'calling init: .*(liblapacke|liblapack|libblas|libopenblas)' fit.log |
    awk '{ print $NF }' | sort -u >loaded
cat loaded
if grep -v "$1/scalemeter-offline/" loaded; then echo "FAILED: fit loaded from the system"; exit 1; fi
grep -q liblapacke loaded || { echo "FAILED: LAPACKE not seen loading"; exit 1; }
mpirun -np 2 scalemeter allreduce --min-bytes 1K --max-bytes 8K --format csv 2>err.log
cat err.log
if [ -s err.log ]; then echo "FAILED: mpirun wrote to stderr"; exit 1; fi
bin/test_gpu_host | tail -1
bin/test_nvml_energy lib/libfake_nvml.so | tail -1
RUN
unshare -m sh run.sh "$work" || fail "the packed scalemeter does not run without this machine's MPI"
echo "ok: the packed scalemeter and Open MPI run with the system's hidden"
