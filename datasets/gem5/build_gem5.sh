#!/bin/bash
# Build the gem5 that records the gem5 datasets: gem5 v24.0.0.1, X86, classic caches only (no Ruby), gem5.fast.
#
#   datasets/gem5/build_gem5.sh [SOURCE_TARBALL]
#
# SOURCE_TARBALL: gem5-v24.0.0.1-src.tar.xz (default: ../shared/tools/gem5/ beside the repository, or
# $GEM5_SRC_TARBALL). Without a tarball and with network, the source is cloned from the upstream tag:
#   git clone --depth 1 --branch v24.0.0.1 https://github.com/gem5/gem5 (commit b1a44b89c7).
# The build goes to $GEM5_BUILD_ROOT (default ~/gem5-build), never into this repository; it takes one
# to two hours on 2 cores (JOBS=N to change -j). Needs: a C++17 compiler, python3-dev, m4, zlib1g-dev,
# and SCons 4.5.2 (newer SCons breaks this gem5's configure step; the script installs it with pip into a
# private virtualenv if `scons` is missing or another version). Prints the binary's path at the end:
#   export MPX_GEM5=$GEM5_BUILD_ROOT/gem5-v24.0.0.1/build/X86/gem5.fast
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
version=24.0.0.1
build_root="${GEM5_BUILD_ROOT:-$HOME/gem5-build}"
jobs="${JOBS:-$(nproc)}"
tarball="${1:-${GEM5_SRC_TARBALL:-$repo/../shared/tools/gem5/gem5-v$version-src.tar.xz}}"
case "$build_root/" in "$repo"/*) echo "GEM5_BUILD_ROOT must be outside the repository ($repo)" >&2; exit 2;; esac
mkdir -p "$build_root"
src="$build_root/gem5-v$version"
if [ ! -d "$src" ]; then
    if [ -f "$tarball" ]; then
        echo "unpacking $tarball into $build_root"
        tar -xJf "$tarball" -C "$build_root"
    else
        echo "no source tarball at $tarball: cloning the upstream tag v$version"
        git clone --depth 1 --branch "v$version" https://github.com/gem5/gem5 "$src"
    fi
fi
[ -f "$src/SConstruct" ] || { echo "$src does not look like a gem5 source tree" >&2; exit 2; }
for tool in m4 g++ python3-config; do
    command -v "$tool" >/dev/null || { echo "missing $tool (apt-get install -y m4 g++ python3-dev zlib1g-dev)" >&2; exit 2; }
done
scons_bin="$(command -v scons || true)"
if [ -z "$scons_bin" ] || [ "$("$scons_bin" --version 2>/dev/null | grep -o 'SCons: v[0-9.]*' | head -1)" != "SCons: v4.5.2" ]; then
    if [ ! -x "$build_root/scons-venv/bin/scons" ]; then
        python3 -m venv "$build_root/scons-venv"
        "$build_root/scons-venv/bin/pip" install "scons==4.5.2"
    fi
    scons_bin="$build_root/scons-venv/bin/scons"
fi
cd "$src"
# Kconfig (gem5 v24): start from the X86 defaults, then switch Ruby off (far fewer files to compile).
"$scons_bin" defconfig build/X86 build_opts/X86
"$scons_bin" setconfig build/X86 RUBY=n
"$scons_bin" build/X86/gem5.fast -j"$jobs" --ignore-style
strip build/X86/gem5.fast || true
echo "built $src/build/X86/gem5.fast"
echo "export MPX_GEM5=$src/build/X86/gem5.fast"
