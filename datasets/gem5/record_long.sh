#!/bin/bash
# Record the long steady-state gem5 datasets (collection "gem5-long" of recipes.json), JOBS at a time
# (default 2: one workload per core), each under `nice -n ${NICE:-5}`, one log and one status file per workload:
#
#   datasets/gem5/record_long.sh [NAME ...]        # default: every gem5-long recipe not recorded yet
#   LOGDIR=/work/gem5-logs JOBS=2 nohup datasets/gem5/record_long.sh > /work/gem5-logs/driver.log 2>&1 &
#   cat $LOGDIR/*.status                           # progress per workload (tail -c 300 $LOGDIR/NAME.log: dumps)
#
# Restartable per workload: a dataset already in ../manifest.json with the recipe of recipes.json is skipped
# (FORCE=1 re-records it); one that was killed is recorded again from its start (gem5 SE mode has no
# checkpoint here), the others are not touched. Each finished workload is written by `mpx datasets rebuild`:
# datasets/traces/NAME.npz and its manifest entry (under a lock, so parallel lanes do not lose entries).
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
export LOGDIR="${LOGDIR:-/tmp/mpx-gem5-logs}" JOBS="${JOBS:-2}" NICE="${NICE:-5}" PYTHON="${PYTHON:-python3}"
mkdir -p "$LOGDIR"
if [ -z "${MPX_GEM5:-}" ]; then
    if command -v gem5.fast >/dev/null; then MPX_GEM5="$(command -v gem5.fast)"
    else MPX_GEM5="${GEM5_BUILD_ROOT:-$HOME/gem5-build}/gem5-v24.0.0.1/build/X86/gem5.fast"; fi
fi
export MPX_GEM5
[ -x "$MPX_GEM5" ] || { echo "gem5 not found at $MPX_GEM5: build it with $here/build_gem5.sh or set MPX_GEM5" >&2; exit 2; }
cd "$repo"
todo=$("$PYTHON" - "$@" <<'PY'
import json, os, sys
from pathlib import Path
root = Path(os.environ.get("MPX_DATASETS") or "datasets")
r = json.load(open(root / "gem5" / "recipes.json"))["datasets"]
m = {d["name"]: d for d in json.load(open(root / "manifest.json"))["datasets"]}
want = sys.argv[1:] or [d["name"] for d in r if d.get("collection") == "gem5-long"]
by = {d["name"]: d for d in r}
for n in want:
    if n not in by:
        sys.exit(f"record_long.sh: no recipe {n!r} in {root / 'gem5' / 'recipes.json'}")
    e = m.get(n)
    done = e and e.get("recipe") == by[n]["recipe"] and (root / e.get("trace", {}).get("file", "-")).is_file()
    if done and not os.environ.get("FORCE"):
        print(f"skip:{n}")
    else:
        print(n)
PY
) || exit 2
one() {
    name="$1"
    case "$name" in skip:*) echo "${name#skip:} already recorded (FORCE=1 to redo)"; return 0;; esac
    echo "running since $(date -u +%FT%TZ) pid $$" > "$LOGDIR/$name.status"
    start=$(date +%s)
    if nice -n "$NICE" "$PYTHON" -m mpx datasets rebuild "$name" > "$LOGDIR/$name.log" 2>&1; then
        echo "done $(date -u +%FT%TZ) after $(( $(date +%s) - start )) s" > "$LOGDIR/$name.status"
    else
        echo "FAILED $(date -u +%FT%TZ) after $(( $(date +%s) - start )) s: see $LOGDIR/$name.log" > "$LOGDIR/$name.status"
    fi
    cat "$LOGDIR/$name.status"
}
export -f one
echo "=== $(date -u +%FT%TZ) recording with $JOBS lanes, logs in $LOGDIR"
printf '%s\n' $todo | xargs -P "$JOBS" -I{} bash -c 'echo "[{}] $(one {})"'
echo "=== $(date -u +%FT%TZ) done"
