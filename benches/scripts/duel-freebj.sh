#!/usr/bin/env bash
# A duel, in CPU time on one thread, between `fairdeal blackjack simulate` and freebj 1.2.2
# (crates.io, MIT) on the game of the project's blackjack speed target: 6 decks, S17, DAS, double any two, split
# to 4 hands, no resplit or play of split aces, no surrender, 3:2, peek, cut card at 75 %,
# one seat, flat bets, basic strategy. The two run alternately, round by round, so that the
# machine's load hits both alike; the ratio per pair and its median and spread are printed.
#
#   bash benches/scripts/duel-freebj.sh             # 10^7 rounds, 7 pairs
#   ROUNDS=1000000 PAIRS=3 BACKEND=xoshiro256pp bash benches/scripts/duel-freebj.sh
#
# freebj is installed into target/peers (cargo install, pinned version) on first use.
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
rounds=${ROUNDS:-10000000}
pairs=${PAIRS:-7}
backend=${BACKEND:-chacha12}
cargo build --quiet --release -p fairdeal-cli
freebj=target/peers/bin/freebj
if [[ ! -x $freebj ]]; then
    cargo install --quiet freebj --version =1.2.2 --root target/peers
fi
fairdeal=target/release/fairdeal
TIMEFORMAT='%U %S'
cpu() { # prints user+sys CPU seconds of "$@", discarding its output
    { time "$@" > /dev/null 2>&1; } 2>&1 | awk '{ printf "%.3f\n", $1 + $2 }'
}
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg); rounds $rounds, backend $backend"
ratios=()
for ((i = 1; i <= pairs; i++)); do
    ours=$(cpu "$fairdeal" blackjack simulate --threads 1 --rounds "$rounds" --seed "$i" \
        --decks 6 --s17 --das --split-hands 4 --penetration 0.75 --backend "$backend")
    theirs=$(cpu "$freebj" -j 1 -n "$rounds" -d 6 --s17 --das --db-any2 --max-splits 4 \
        --no-playAA --no-surr --ahc -p 75%)
    ratio=$(awk -v a="$theirs" -v b="$ours" 'BEGIN { printf "%.2f", a / b }')
    ratios+=("$ratio")
    echo "pair $i: fairdeal ${ours} s, freebj ${theirs} s CPU: ${ratio}x"
done
printf '%s\n' "${ratios[@]}" | sort -n | awk '
    { r[NR] = $1 }
    END { printf "freebj / fairdeal CPU time: median %.2fx (min %.2fx, max %.2fx, %d pairs)\n",
          (NR % 2 ? r[(NR + 1) / 2] : (r[NR / 2] + r[NR / 2 + 1]) / 2), r[1], r[NR], NR }'
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
