#!/bin/bash
# Progress of the gem5 recordings running on this machine (`mpx datasets rebuild`, record_all.sh,
# record_long.sh): per gem5 process, the dataset (its working folder /tmp/mpx-datasets/NAME), the dumps
# written so far of --max-dumps, and CPU and wall time; then the status files of record_long.sh ($LOGDIR).
#   datasets/gem5/progress.sh            (LOGDIR=/work/gem5-logs datasets/gem5/progress.sh)
for pid in $(pgrep -f 'gem5[.](fast|opt).*se_periodic[.]py'); do
    args=$(tr '\0' ' ' < /proc/$pid/cmdline 2>/dev/null) || continue
    out=$(sed -n 's/.*--outdir=\([^ ]*\).*/\1/p' <<< "$args")
    name=$(sed -n 's/.*--cwd \/tmp\/mpx-datasets\/\([^ ]*\).*/\1/p' <<< "$args")
    max=$(sed -n 's/.*--max-dumps \([0-9]*\).*/\1/p' <<< "$args")
    n=$(grep -c 'Begin Simulation' "$out/stats.txt" 2>/dev/null); n=${n:-0}
    ff=$(grep -c 'measured from tick' "$out/../gem5.log" 2>/dev/null); ff=${ff:-0}
    printf '%-22s pid %-7s dumps %5s / %-5s %s  cpu %s  wall %s\n' "${name:-?}" "$pid" "$n" "${max:-exit}" \
        "$([ "$ff" = 0 ] && grep -q -- '--fast-forward-insts' <<< "$args" && echo '(fast-forwarding)')" \
        "$(ps -o time= -p "$pid")" "$(ps -o etime= -p "$pid")"
done
if [ -d "${LOGDIR:-/tmp/mpx-gem5-logs}" ]; then
    for f in "${LOGDIR:-/tmp/mpx-gem5-logs}"/*.status; do [ -e "$f" ] && echo "$(basename "$f" .status): $(cat "$f")"; done
fi
