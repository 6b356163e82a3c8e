#!/bin/sh
# Records the repeated runs of trace alignment (issue 18): three programs, eight runs each, every run with
# ground truth, each run differing as real runs do (ASLR on, a hash seed per run for the interpreters, an
# environment 64 bytes longer per run). The input text is generated (seeded), so the set rebuilds the same
# on any machine with the same valgrind, python3.11 and perl. About 11 minutes on 2 cores (measured while
# other jobs ran).
#   sh datasets/runs/record.sh [OUT_DIR]        (default: datasets/runs/)
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${1:-"$HERE"}
mkdir -p "$OUT/work"
OUT=$(cd "$OUT" && pwd)
cd "$OUT/work"
/usr/bin/python3 "$HERE/workloads/make_text.py"            # text.txt: 60,000 lines, 3.7 MB
head -c 600000 text.txt > small.txt
cp "$HERE/workloads/wordcount.py" "$HERE/workloads/wordcount.pl" .
C="I1=32768,8,64 D1=32768,8,64 LL=8388608,16,64"
R="--runs 8 --jobs 2 --interval-bb 300000 --cache"
mpx record $R "$C" --seed-env PYTHONHASHSEED --workload pywc -o "$OUT/pywc.runs" -- /usr/bin/python3 wordcount.py
mpx record $R "$C" --seed-env PERL_HASH_SEED --workload plwc -o "$OUT/plwc.runs" -- /usr/bin/perl wordcount.pl
mpx record $R "$C" --workload xz-t2 -o "$OUT/xz-t2.runs" -- /usr/bin/xz -T2 -6 -c small.txt
