#!/usr/bin/env bash
# link-down HOST stalls a running transfer into HOST (no byte arrives for 2 s) and link-up restores it: the transfer
# resumes (still throttled) and, once cleared, completes with every byte.
source "$(dirname "$0")/lib.sh"
fab_init ftdn 110

total=$((32 << 20))
"$VF" up --hosts 2 "${VFN[@]}"
mapfile -t hosts < <("$VF" hosts "${VFN[@]}")
a=${hosts[0]} b=${hosts[1]}
"$VF" throttle-link "$a" "$b" 40mbit "${VFN[@]}" # ~7 s for 32 MiB: time to pull the cable mid-way
log=$FAB_TMP/recv.log
"$VF" exec "$b" "${VFN[@]}" -- "$PY" "$FAB_DIR/xfer.py" serve 5302 --log "$log" --timeout 60 >"$FAB_TMP/recv.out" &
rp=$!
FAB_BG+=("$rp")
addr=$("$VF" addr "$b" "${VFN[@]}")
"$VF" exec "$a" "${VFN[@]}" -- "$PY" "$FAB_DIR/xfer.py" send "$addr" 5302 $total \
  --timeout 60 >"$FAB_TMP/send.out" &
sp=$!
FAB_BG+=("$sp")

received() { { tail -n 1 "$log" 2>/dev/null || true; } | awk '{ n = $2 } END { print n + 0 }'; }
for ((i = 0; i < 200; i++)); do
  [ "$(received)" -lt $((1 << 20)) ] || break
  sleep 0.05
done
r0=$(received)
[ "$r0" -ge $((1 << 20)) ] || fail "the transfer did not start (received $r0 bytes in 10 s)"
sleep 0.3
r1=$(received)
[ "$r1" -gt "$r0" ] || fail "the transfer was not running before link-down ($r0 -> $r1)"
"$VF" link-down "$b" "${VFN[@]}"
sleep 0.5 # what was already in flight lands
r2=$(received)
sleep 2
r3=$(received)
note "before link-down: $r0 -> $r1 bytes in 0.3 s; while down: $r2 -> $r3 bytes in 2 s"
[ "$r3" -lt $total ] || fail "the transfer finished before the link went down; make it longer"
[ $((r3 - r2)) -le 65536 ] || fail "link-down did not stall the transfer: $((r3 - r2)) bytes arrived in 2 s"

t_up=$(date +%s.%N)
"$VF" link-up "$b" "${VFN[@]}"
for ((i = 0; i < 400; i++)); do
  [ "$(received)" -le "$r3" ] || break
  sleep 0.05
done
[ "$(received)" -gt "$r3" ] || fail "no byte arrived within 20 s of link-up"
note "resumed $(awk -v a="$t_up" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }') s after link-up"
"$VF" clear "${VFN[@]}" # the rest at full speed
wait $sp || fail "the sender failed after link-up"
wait $rp || fail "the receiver failed after link-up"
grep -q "received $total" "$FAB_TMP/recv.out" || fail "receiver got $(cat "$FAB_TMP/recv.out"), expected $total bytes"
note "transfer completed: $(cat "$FAB_TMP/send.out")"
echo PASS
