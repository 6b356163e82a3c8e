#!/bin/sh
# Records four gem5 held-out programs (issue 28 item 4): programs in no shipped gem5 dataset, never used to
# fit or tune a method, recorded exactly like the shipped 5 ms gem5 datasets (SE mode, the O3 X86 machine of
# mpx.recording.gem5.HARDWARE, 1,000 dumps of 5 us from the first instruction) into
# datasets/heldout/traces/gem5/ (git-ignored; a folder of its own, as the callgrind headline globs
# traces/*.npz): gzip and bzip2 on generated text (read from stdin: gzip's own open of a file name fails in
# gem5's syscall emulation, "No such file or directory"), bc computing pi, sed rewriting generated records.
# Inputs come from datasets/generate.py (seeded) and gem5 is deterministic, so the traces are the same on
# any machine with the same gem5 binary. 3-6 minutes each on one core; two lanes run them side by side.
#   sh datasets/heldout/record_gem5.sh [LANES]        (gem5: $MPX_GEM5, else gem5.fast on PATH)
set -eu
LANES=${1:-1}
HERE=$(cd "$(dirname "$0")" && pwd)
OUT="$HERE/traces/gem5"
mkdir -p "$OUT/work"
cd "$OUT/work"
GEN="python3 $HERE/../generate.py"
$GEN text --seed 31 --bytes 2000000 -o text.txt
$GEN records --seed 32 --rows 60000 -o records.csv
printf 'scale=900; 4*a(1)\nquit\n' > pi.bc
rec() {  # NAME, then the program and its arguments
    name=$1; shift
    if [ -f "$OUT/$name.npz" ]; then echo "$name: exists, kept"; return 0; fi
    mpx record --simulator gem5 --period 5us --max-dumps 1000 --workload "$name" -o "$OUT/$name.npz" "$@" \
        > "$OUT/$name.log" 2>&1 && echo "$name: done" || { echo "$name: FAILED (see $OUT/$name.log)"; return 1; }
}
run() {
    rec gem5-gzip --stdin text.txt --stdout gz.out -- /usr/bin/gzip -6 -c
    rec gem5-bzip2 --stdin text.txt --stdout bz.out -- /usr/bin/bzip2 -9 -c
    rec gem5-bc --stdin pi.bc --stdout bc.out -- /usr/bin/bc -l
    rec gem5-sed --stdout sed.out -- /usr/bin/sed -E 's/([a-z]+),([0-9]+)/\2;\1/g; s/[aeiou]{2,}/#/g' records.csv
}
if [ "$LANES" -le 1 ]; then
    run
else  # two lanes: the compressors in one, the interpreters in the other
    ( rec gem5-gzip --stdin text.txt --stdout gz.out -- /usr/bin/gzip -6 -c
      rec gem5-bzip2 --stdin text.txt --stdout bz.out -- /usr/bin/bzip2 -9 -c ) &
    ( rec gem5-bc --stdin pi.bc --stdout bc.out -- /usr/bin/bc -l
      rec gem5-sed --stdout sed.out -- /usr/bin/sed -E 's/([a-z]+),([0-9]+)/\2;\1/g; s/[aeiou]{2,}/#/g' records.csv ) &
    wait
fi
ls -l "$OUT"/*.npz
