# The awk program of the `awk` dataset: a report over a web-server-like CSV log.
# Run as `awk -F, -f report.awk records.csv` (mawk on Debian). Field splitting, associative arrays,
# regular expressions, string functions and a final formatted report with a hand-written sort.
NR == 1 { next }
{
    user = $2; city = $3; method = $4; path = $5; status = $6 + 0; bytes = $7 + 0; lat = $8 + 0
    hits[user]++
    city_bytes[city] += bytes
    by_status[status]++
    by_method[method]++
    n = split(path, seg, "/")
    endpoint = seg[4]
    ep_hits[endpoint]++
    ep_lat[endpoint] += lat
    if (lat > ep_max[endpoint]) ep_max[endpoint] = lat
    if (status >= 500) errors[city]++
    if (path ~ /\/v3\/[a-z]*(ai|ou|ea)[a-z]*\//) vowel_paths++
    if (match(path, /[0-9]+$/)) idsum += substr(path, RSTART, RLENGTH) % 997
    bucket = int(log(lat + 1) * 4)
    lat_hist[bucket]++
    key = tolower(substr(endpoint, 1, 3)) "-" method
    combo[key]++
    t = $1 + 0
    minute = int(t / 60)
    if (minute != last_minute) { minutes++; last_minute = minute }
    per_minute[minute % 60] += bytes
    line = $0
    gsub(/[aeiou]/, "", line)
    stripped += length(line)
}
function top(arr, k, label,    i, j, best, bestv, used, out) {
    out = ""
    for (i = 1; i <= k; i++) {
        bestv = -1; best = ""
        for (j in arr) if (!(j in used) && arr[j] > bestv) { bestv = arr[j]; best = j }
        if (best == "") break
        used[best] = 1
        out = out sprintf("  %-2d %-24s %12d\n", i, best, bestv)
    }
    printf("%s\n%s", label, out)
}
END {
    printf("records %d, minutes %d, vowel paths %d, id sum %d, stripped %d\n", NR - 1, minutes, vowel_paths, idsum, stripped)
    top(hits, 20, "top users")
    top(city_bytes, 25, "bytes by city")
    top(ep_hits, 30, "top endpoints")
    top(combo, 30, "endpoint prefix x method")
    for (s in by_status) printf("status %s %d\n", s, by_status[s])
    for (m in by_method) printf("method %s %d\n", m, by_method[m])
    for (b = 0; b < 40; b++) if (b in lat_hist) printf("latency bucket %2d %d\n", b, lat_hist[b])
    for (e in ep_hits) if (ep_hits[e] > 2000) printf("endpoint %s mean %.3f max %.2f\n", e, ep_lat[e] / ep_hits[e], ep_max[e])
    for (c in errors) printf("errors %s %d\n", c, errors[c])
}
