#!/bin/sh
# Records the held-out programs of issue 7 (in no shipped dataset; never used while developing the fusion
# scalers) with `mpx record` into datasets/heldout/traces/ (git-ignored): gzip, grep and a Python JSON +
# heap sort script (recorded once the method's defaults were fixed), then bc, sed and diff (recorded after
# every decision of the second session on the method, as a fresh set). ~7 minutes on a 2-core machine. Inputs come from this machine's
# /usr/share, so the traces are not bit-identical across machines: they are held-out programs, not
# shipped datasets. Used by experiments/headline.toml and experiments/analyses/fusion*.py --heldout.
#   sh datasets/heldout/record.sh [OUT_DIR]
set -eu
OUT=${1:-"$(dirname "$0")/traces"}
mkdir -p "$OUT/work"
OUT=$(cd "$OUT" && pwd)
cd "$OUT/work"
C="I1=32768,8,64 D1=32768,8,64 LL=8388608,16,64"
tar cf - /usr/share/doc /usr/share/common-licenses 2>/dev/null | head -c 12000000 > doc12.tar
mpx record -o "$OUT/gzip.npz" --interval-bb 300000 --cache "$C" --workload gzip --stdout gz.out -- \
    /usr/bin/gzip -9 -c doc12.tar
mpx record -o "$OUT/grep.npz" --interval-bb 300000 --cache "$C" --workload grep --stdout grep.out --ok-status 0,1 -- \
    /usr/bin/grep -rciE "([a-z]+)ing .* \1|[0-9]{2,}\.[0-9]+" /usr/share/doc /usr/share/i18n /usr/share/X11 /usr/share/perl5
mpx record -o "$OUT/pyjson.npz" --interval-bb 300000 --cache "$C" --workload pyjson -- /usr/bin/python3 -c "import json,random,heapq
random.seed(5)
d=[{'k':random.random(),'s':''.join(random.choice('abcdef') for _ in range(12)),'l':list(range(random.randint(0,30)))} for _ in range(60000)]
t=json.dumps(d); e=json.loads(t); h=[(x['k'],x['s']) for x in e]; heapq.heapify(h); r=[heapq.heappop(h) for _ in range(len(h))]
print(len(t), r[0])"
cat /usr/share/i18n/locales/* > locales.txt
sed -E '0~3s/[aeiou]/#/g; 0~11d' locales.txt > locales2.txt
printf 'scale=1500; 4*a(1)\nquit\n' > pi.bc
mpx record -o "$OUT/bc.npz" --interval-bb 300000 --cache "$C" --workload bc --stdout bc.out --stdin pi.bc -- /usr/bin/bc -l
mpx record -o "$OUT/sed.npz" --interval-bb 300000 --cache "$C" --workload sed --stdout sed.out -- \
    /usr/bin/sed -E 's/<U([0-9A-F]{4})>/\\u\1/g; s/([a-z]+)_([A-Z]+)/\2-\1/g' locales.txt
mpx record -o "$OUT/diff.npz" --interval-bb 300000 --cache "$C" --workload diff --stdout diff.out --ok-status 0,1 -- \
    /usr/bin/diff locales.txt locales2.txt
ls -l "$OUT"/*.npz
