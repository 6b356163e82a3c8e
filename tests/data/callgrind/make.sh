#!/bin/sh
# How the callgrind fixtures in this folder were made (valgrind-3.19.0, Debian 12, x86_64).
# Real callgrind runs of gzip on a small generated text, ASLR off and a fixed environment so that the
# split and the combined run see identical counts. Re-running this overwrites the fixtures; counts
# may differ with other valgrind/gzip/glibc versions or CPUs (the tests only compare files with
# each other and with valgrind.log, never with hard-coded numbers).
set -e
cd "$(dirname "$0")"
rm -rf split combined work
mkdir split combined work
python3 ../../../datasets/generate.py text --seed 3 --bytes 60000 -o work/input.txt
OPTS="--tool=callgrind --cache-sim=yes --branch-sim=yes --I1=32768,8,64 --D1=32768,8,64 --LL=8388608,16,64 --dump-every-bb=20000 --dump-line=no --collect-bus=yes --simulate-wb=yes"
cd work
env -i PATH=/usr/bin:/bin LC_ALL=C setarch "$(uname -m)" -R valgrind $OPTS \
    --callgrind-out-file=../split/cg.out --log-file=../split/valgrind.log /bin/gzip -6 -c input.txt > /dev/null
env -i PATH=/usr/bin:/bin LC_ALL=C setarch "$(uname -m)" -R valgrind $OPTS --combine-dumps=yes \
    --callgrind-out-file=../combined/cg.out --log-file=../combined/valgrind.log /bin/gzip -6 -c input.txt > /dev/null
cd ..
rm -rf work
# valgrind.log: keep only the lines without the pid-specific banner noise
xz -9 combined/cg.out  # the reader opens compressed dumps transparently
for d in split combined; do sed -i 's/^==[0-9]*==/==PID==/' $d/valgrind.log; done
