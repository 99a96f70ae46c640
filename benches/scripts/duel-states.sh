#!/usr/bin/env bash
# The duels read at the host's fastest state. On a shared virtual machine the host moves
# between states lasting a tenth of a second or more (other guests on the same core): in a
# slower state every side runs slower, and the side that executes more instructions slows
# more, so a ratio read there overstates our lead (by up to 1.3x on the Zen 3 guest of
# docs/notes/2026-11-27-zen3.md). This runs the duel program RUNS times and, for each duel,
# keeps the runs whose time per call (ours + peer) is within 10 % of that duel's fastest run:
# their median ratio and range, our median time per call, and how many runs that was. The
# duel's own options pass on.
#
#   bash benches/scripts/duel-states.sh                            # every duel, 8 runs
#   RUNS=15 bash benches/scripts/duel-states.sh --filter deck52/wyrand
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
runs=${RUNS:-8}
cargo build --quiet --release -p fairdeal-benches --example duel
duel=$(cargo metadata --format-version 1 --no-deps |
    sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')/release/examples/duel
lines=$(mktemp)
trap 'rm -f "$lines"' EXIT
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg); $runs runs of: duel $*"
for ((i = 1; i <= runs; i++)); do
    # One line per duel: its id, ours + peer ns per call, the ratio, ours ns per call.
    "$duel" "$@" | awk '/ vs / {
        # The first "ours", "peer" and "ratio" (the rest of the line repeats the words).
        ours = peer = ratio = ""
        for (f = 1; f < NF; f++) {
            if ($f == "ours" && ours == "") ours = $(f + 1)
            if ($f == "peer" && peer == "") peer = $(f + 1)
            if ($f == "ratio" && ratio == "") { ratio = $(f + 1); sub(/×/, "", ratio) }
        }
        print $1 "/" $2 "/" $3 "/" $4 "/" $6, ours + peer, ratio, ours
    }' >> "$lines"
    echo "run $i of $runs done, load $(cut -d' ' -f1 /proc/loadavg)" >&2
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
# Each duel's runs, fastest first; the first gives the limit (1.1x its time).
sort -k1,1 -k2,2g "$lines" | awk '
    function sorted_median(a,   i, j, t) {
        for (i = 2; i <= k; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
            t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
        }
        return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
    }
    function report(   median) {
        median = sorted_median(r)
        printf "%-52s %.2fx (%.2f-%.2f), ours %.1f ns; %d of %d runs at the fastest state\n",
            id, median, r[1], r[k], sorted_median(o), k, n
    }
    $1 != id { if (id != "") report(); id = $1; limit = 1.1 * $2; k = 0; n = 0 }
    { n++; if ($2 <= limit) { r[++k] = $3; o[k] = $4 } }
    END { if (id != "") report() }'
