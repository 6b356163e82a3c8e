#!/bin/bash
# Record (or re-record) the gem5 datasets one after another: the rebuild recipe of datasets/gem5/recipes.json.
#
#   datasets/gem5/record_all.sh [NAME ...]          # default: every recipe, in file order
#
# gem5: $MPX_GEM5, else gem5.fast on PATH, else the build of build_gem5.sh ($GEM5_BUILD_ROOT/gem5-v24.0.0.1/
# build/X86/gem5.fast). Each dataset takes 3-6 minutes on one core (1,000 dumps of 5 us of simulated time);
# run one at a time. Each `mpx datasets rebuild` writes datasets/traces/NAME.npz and its manifest entry;
# `mpx datasets rebuild NAME --check` re-records and compares the sha256 (gem5 is deterministic).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
if [ -z "${MPX_GEM5:-}" ]; then
    if command -v gem5.fast >/dev/null; then MPX_GEM5="$(command -v gem5.fast)"
    else MPX_GEM5="${GEM5_BUILD_ROOT:-$HOME/gem5-build}/gem5-v24.0.0.1/build/X86/gem5.fast"; fi
fi
export MPX_GEM5
[ -x "$MPX_GEM5" ] || { echo "gem5 not found at $MPX_GEM5: build it with $here/build_gem5.sh or set MPX_GEM5" >&2; exit 2; }
PY="${PYTHON:-python3}"
if [ "$#" -eq 0 ]; then
    set -- $("$PY" -c "import json,sys; print(' '.join(d['name'] for d in json.load(open(sys.argv[1]))['datasets']))" "$here/recipes.json")
fi
cd "$repo"
for name in "$@"; do
    echo "=== $name $(date -u +%H:%M:%S)"
    "$PY" -m mpx datasets rebuild "$name" ${CHECK:+--check}
done
echo "=== done $(date -u +%H:%M:%S)"
