#!/bin/sh
# Packs scalemeter for a GPU node that has no package registry and no MPI (docs/gpu.md,
# "Running on a GPU node with no package registry"): one tarball with the binary, its library,
# the plugins, the zoo and the configs, the GPU test programs, Open MPI unpacked from Debian's
# packages (apt-get download + dpkg -x) and every other library they need that a bare node may
# lack, and env.sh, which points PATH, LD_LIBRARY_PATH, OPAL_PREFIX and PMIx's paths at
# them and finds the CUDA libraries of the node (PyTorch's nvidia-* packages, or a toolkit).
#
# Not packed: glibc and libstdc++ (every node has them, newer), and the CUDA libraries (libcudart,
# libcublas, libcudnn, libnccl: the node's, of the same CUDA major version as the build; NVML and
# libcuda come with its driver).
#
#   tools/pack-offline.sh [-B BUILD_DIR] [-o TARBALL] [--mpi-from download|installed]
#
#   -B DIR        a configured build tree to build and pack (default: build-offline, configured
#                 here as Release with the GPU backend)
#   -o TARBALL    the output (default: BUILD_DIR/scalemeter-offline-x86_64.tar.gz)
#   --mpi-from    download (default): apt-get download the Open MPI packages of this machine's
#                 release; installed: copy the files of the installed packages (dpkg -L), for a
#                 build machine without network
#
# Build on x86-64 against the CUDA major version of the node (this machine: CUDA 13, as
# PyTorch's cu130 wheels). The tarball unpacks into scalemeter-offline/.
set -eu

src=$(cd "$(dirname "$0")/.." && pwd)
build=$src/build-offline
out=
mpi_from=download
while [ $# -gt 0 ]; do
    case $1 in
    -B) build=$(mkdir -p "$2" && cd "$2" && pwd); shift 2 ;;
    -o) out=$2; shift 2 ;;
    --mpi-from) mpi_from=$2; shift 2 ;;
    -h|--help) sed -n '2,24p' "$0"; exit 0 ;;
    *) echo "pack-offline.sh: unexpected argument '$1' (--help)" >&2; exit 2 ;;
    esac
done
case $mpi_from in download|installed) ;; *)
    echo "pack-offline.sh: --mpi-from $mpi_from: expected download or installed" >&2; exit 2 ;;
esac
[ "$(uname -m)" = x86_64 ] || { echo "pack-offline.sh: GPU nodes are x86-64; this is $(uname -m)" >&2; exit 1; }
out=${out:-$build/scalemeter-offline-x86_64.tar.gz}
case $out in /*) ;; *) out=$(pwd)/$out ;; esac

say() { echo "pack-offline.sh: $*" >&2; }

# ---- build and install into the stage ----------------------------------------------------
if [ ! -f "$build/CMakeCache.txt" ]; then
    cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release -DSCALEMETER_CUDA=ON >&2
fi
grep -q '^SCALEMETER_CUDA:BOOL=ON' "$build/CMakeCache.txt" ||
    say "warning: $build is configured without the GPU backend"
cmake --build "$build" -j"$(nproc)" >&2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
stage=$work/scalemeter-offline
cmake --install "$build" --prefix "$stage" >&2
# the GPU test programs and the fake NVML beside the binary (their RUNPATH is $ORIGIN/../lib)
mkdir -p "$stage/share/scalemeter/tests"
for t in test_gpu_host test_gpu_executor test_conformance_gpu test_nvml_energy; do
    [ -x "$build/bin/$t" ] && cp "$build/bin/$t" "$stage/bin/"
done
[ -f "$build/lib/libfake_nvml.so" ] && cp "$build/lib/libfake_nvml.so" "$stage/lib/"
cp "$src/tests/test_gpu_cli.sh" "$stage/share/scalemeter/tests/"

# ---- Open MPI: Debian's packages, unpacked ------------------------------------------------
mpi=$stage/mpi
mkdir -p "$mpi" "$work/debs"
mpi_packages="openmpi-bin libopenmpi3 openmpi-common libpmix2"
if [ "$mpi_from" = download ]; then
    (cd "$work/debs" && apt-get download $mpi_packages >&2) || {
        say "apt-get download failed; use --mpi-from installed on a machine without network"
        exit 1
    }
    for deb in "$work"/debs/*.deb; do
        dpkg -x "$deb" "$mpi"
    done
else
    for p in $mpi_packages; do
        dpkg -L "$p" | while read -r f; do
            [ -f "$f" ] || [ -L "$f" ] || continue
            mkdir -p "$mpi$(dirname "$f")"
            cp -P "$f" "$mpi$f"
        done
    done
fi
rm -rf "$mpi/usr/share/doc" "$mpi/usr/share/man"
# Debian's alternatives give libmpi.so.40 and mpirun links in /etc; the package's own names are
# what we link to
multiarch=usr/lib/x86_64-linux-gnu
[ -e "$mpi/usr/bin/mpirun" ] || ln -s orterun "$mpi/usr/bin/mpirun"
[ -e "$mpi/usr/bin/mpiexec" ] || ln -s orterun "$mpi/usr/bin/mpiexec"

# ---- every other library a bare node may lack -----------------------------------------------
# Resolved with the stage first on the path; whatever still comes from this machine is copied
# into lib/, except glibc, libstdc++/libgcc (the node's are newer) and the CUDA and driver
# libraries (the node's own).
libpath=$stage/lib:$mpi/$multiarch:$mpi/$multiarch/openmpi/lib:$mpi/$multiarch/pmix2/lib
skip='^(libc|libm|libdl|libpthread|librt|libresolv|libutil|ld-linux-x86-64|libstdc\+\+|libgcc_s|libcuda|libcudart|libcublas|libcublasLt|libcudnn.*|libnccl|libnvidia-ml|libnvrtc|libnvJitLink|linux-vdso)\.so'
closure() {
    find "$stage/bin" "$stage/lib" "$mpi/usr/bin" "$mpi/$multiarch" -type f \
        \( -perm -u+x -o -name '*.so*' \) 2>/dev/null | while read -r f; do
        [ "$(od -An -tx1 -N4 "$f" | tr -d ' \n')" = 7f454c46 ] || continue # ELF
        LD_LIBRARY_PATH=$libpath ldd "$f" 2>/dev/null
    done | awk '$2 == "=>" && $3 ~ /^\// { print $1, $3 }' | sort -u
}
# ldd sees only what is linked: the libraries scalemeter loads with dlopen (LAPACKE, for fit's
# least squares, named in libscalemeter by its soname) are bundled by name first, so that the
# passes below bring what they need. Without this a node's own LAPACKE was loaded beside the
# packed OpenBLAS, and fit crashed inside dgemm (the H200 run of 2026-11-26).
for soname in $(grep -aho 'liblapacke\.so\.[0-9]*' "$stage"/lib/libscalemeter.so.* | sort -u); do
    path=$(ldconfig -p | awk -v n="$soname" '$1 == n && /x86-64/ { print $NF; exit }')
    [ -n "$path" ] || { say "no $soname on this machine (apt-get install liblapacke)"; exit 1; }
    cp -L "$path" "$stage/lib/$soname"
    say "bundled $soname (loaded with dlopen)"
done
for pass in 1 2 3 4; do
    closure | while read -r name path; do
        echo "$name" | grep -Eq "$skip" && continue
        case $path in "$stage"/*) continue ;; esac
        [ -e "$stage/lib/$name" ] && continue
        cp -L "$path" "$stage/lib/$name"
        echo "$name"
    done >"$work/added"
    [ -s "$work/added" ] || break
    say "pass $pass: bundled $(tr '\n' ' ' <"$work/added")"
done
for f in "$stage"/bin/scalemeter "$stage"/lib/scalemeter/plugins/*.so \
    "$stage"/lib/scalemeter/backends/*.so "$stage"/lib/liblapacke.so.*; do
    LD_LIBRARY_PATH=$libpath ldd "$f" | grep 'not found' | grep -Ev "$skip" || true
done >"$work/unresolved"
if [ -s "$work/unresolved" ]; then
    say "unresolved libraries:"
    cat "$work/unresolved" >&2
    exit 1
fi

# ---- env.sh ---------------------------------------------------------------------------------
cat >"$stage/env.sh" <<'ENV'
# Source this file (. scalemeter-offline/env.sh) to use the packed scalemeter and Open MPI.
# It finds the node's CUDA libraries: PyTorch's nvidia-* packages (cuDNN, NCCL, cuBLAS, the
# CUDA runtime) of the python3 on the PATH, else /usr/local/cuda; and the driver's (libcuda,
# NVML) where the loader already finds them, or in /usr/local/nvidia/lib64.
# Where it is: $SCALEMETER_OFFLINE if set; else bash's BASH_SOURCE or zsh's $0, which name a
# sourced file; POSIX sh (dash) names none (its $0 is the shell or the sourcing script), so
# then the scalemeter-offline folder below the working one, or the working one itself. A
# folder counts only if it holds this pack (bin/scalemeter and env.sh): never a wrong guess.
sm_here=
for sm_try in "${SCALEMETER_OFFLINE:-}" "$(dirname -- "${BASH_SOURCE:-$0}")" \
    "$(pwd)/scalemeter-offline" "$(pwd)"; do
    if [ -n "$sm_try" ] && [ -x "$sm_try/bin/scalemeter" ] && [ -f "$sm_try/env.sh" ]; then
        sm_here=$(cd "$sm_try" && pwd)
        break
    fi
    [ -z "${SCALEMETER_OFFLINE:-}" ] || break # given: that one or none
done
unset sm_try
if [ -z "$sm_here" ]; then
    echo "env.sh: cannot tell where scalemeter-offline is (POSIX sh does not say which file it" \
        "sources): source it from the folder that holds scalemeter-offline, or set" \
        "SCALEMETER_OFFLINE=/path/to/scalemeter-offline first" >&2
    return 1 2>/dev/null || exit 1
fi
sm_ma=lib/x86_64-linux-gnu
export OPAL_PREFIX=$sm_here/mpi/usr
export PMIX_PREFIX=$sm_here/mpi/usr/$sm_ma/pmix2
# PMIx relocates its help files by PMIX_PREFIX but looks for its plugins where it was built
export PMIX_MCA_mca_base_component_path=$PMIX_PREFIX/lib/pmix
# A node's own PMIx of another version (seen on the H100 node: its pcompress_zlib component,
# loaded where the path above was wrong, failed on a missing symbol and PMIx warned on every
# mpirun): compression of startup data is optional, so its warning stays off
export PMIX_MCA_pcompress_base_silence_warning=1
export PATH=$sm_here/bin:$OPAL_PREFIX/bin:$PATH
sm_cuda=$(python3 - 2>/dev/null <<'PY'
import glob, os
try:
    import nvidia
    roots = list(nvidia.__path__)
except Exception:
    roots = []
dirs = set()
for r in roots:
    for f in glob.glob(os.path.join(r, "**", "lib*.so*"), recursive=True):
        dirs.add(os.path.dirname(f))
print(":".join(sorted(dirs)))
PY
)
[ -n "$sm_cuda" ] || sm_cuda=/usr/local/cuda/lib64
[ -d /usr/local/nvidia/lib64 ] && sm_cuda=$sm_cuda:/usr/local/nvidia/lib64
export LD_LIBRARY_PATH=$sm_here/lib:$OPAL_PREFIX/$sm_ma:$OPAL_PREFIX/$sm_ma/openmpi/lib:$PMIX_PREFIX/lib:$sm_cuda${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
# One node: shared memory between the ranks, no network transports to probe (override these
# for several nodes, e.g. OMPI_MCA_btl=self,vader,tcp).
export OMPI_MCA_pml=${OMPI_MCA_pml:-ob1}
export OMPI_MCA_btl=${OMPI_MCA_btl:-self,vader}
export OMPI_MCA_btl_vader_single_copy_mechanism=${OMPI_MCA_btl_vader_single_copy_mechanism:-none}
export OMPI_MCA_osc=${OMPI_MCA_osc:-^ucx}
# root in containers
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
unset sm_ma sm_cuda
ENV

cat >"$stage/README" <<'TXT'
scalemeter, packed by tools/pack-offline.sh for a node without a package registry.

  tar xzf scalemeter-offline-x86_64.tar.gz
  . scalemeter-offline/env.sh
  scalemeter backends                        # cuda: usable, with the node's GPU named
  scalemeter bench --backend cuda --model resnet18 --batch 32 -o runs.csv
  mpirun -np 8 scalemeter calibrate --backend cuda ...      # one rank per GPU

docs/gpu.md of the sources explains every step and column.
TXT

# ---- the tarball ----------------------------------------------------------------------------
mkdir -p "$(dirname "$out")"
tar -C "$work" -czf "$out" scalemeter-offline
say "wrote $out ($(du -h "$out" | cut -f1))"
echo "$out"
