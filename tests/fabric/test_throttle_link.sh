#!/usr/bin/env bash
# throttle-link A B RATE slows only A -> B: an 8 MiB transfer A -> B runs at most 1.2x RATE, B -> A at least 5x faster
# (best of three: the reverse direction is unshaped, only the shared CPU can slow it).
source "$(dirname "$0")/lib.sh"
fab_init ftlink 110

MiB8=$((8 << 20))
rate=100mbit
rate_Bps=12500000
"$VF" up --hosts 2 "${VFN[@]}"
mapfile -t hosts < <("$VF" hosts "${VFN[@]}")
a=${hosts[0]} b=${hosts[1]}

"$VF" throttle-link "$a" "$b" $rate "${VFN[@]}"
ab=$(fab_xfer "$a" "$b" $MiB8)
note "throttled ($rate) 8 MiB $a -> $b: $(fab_mbs "$ab") (set rate $(fab_mbs $rate_Bps))"
[ "$ab" -le $((rate_Bps * 12 / 10)) ] || fail "throttled direction ran at $(fab_mbs "$ab"), above 1.2 x $rate"
[ "$ab" -ge $((rate_Bps * 3 / 10)) ] || fail "throttled direction ran at $(fab_mbs "$ab"), below 0.3 x $rate: broken link?"

best=0
for try in 1 2 3; do
  ba=$(fab_xfer "$b" "$a" $MiB8)
  note "reverse (unshaped) 8 MiB $b -> $a, try $try: $(fab_mbs "$ba")"
  [ "$ba" -le "$best" ] || best=$ba
  [ "$best" -lt $((5 * ab)) ] || break
done
[ "$best" -ge $((5 * ab)) ] || fail "reverse direction $(fab_mbs "$best") is not 5x the throttled $(fab_mbs "$ab")"
note "reverse/throttled = $(awk -v x="$best" -v y="$ab" 'BEGIN { printf "%.1f", x / y }')x"

echo PASS
