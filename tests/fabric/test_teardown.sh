#!/usr/bin/env bash
# vfabric basics and teardown: hosts/hostfile, distinct hostnames through mpirun (one rank per host), a second
# instance alongside on its own subnet, every fault command installs and clears its qdisc, refusal without root,
# and `down` leaves no namespace, veth, bridge or state behind (also with a process still running inside).
source "$(dirname "$0")/lib.sh"
fab_init ftdown 130

"$VF" up --hosts 3 "${VFN[@]}"
mapfile -t hosts < <("$VF" hosts "${VFN[@]}")
[ ${#hosts[@]} = 3 ] || fail "hosts printed ${#hosts[@]} names, expected 3"
hf=$("$VF" hostfile "${VFN[@]}")
[ "$(grep -c 'slots=1' "$hf")" = 3 ] || fail "hostfile $hf: expected 3 lines with slots=1"
for h in "${hosts[@]}"; do
  a=$("$VF" addr "$h" "${VFN[@]}")
  [[ "$a" =~ ^198\.1[89]\.[0-9]+\.[0-9]+$ ]] || fail "address $a of $h is outside 198.18.0.0/15"
  [ "$("$VF" exec "$h" "${VFN[@]}" -- hostname)" = "$h" ] || fail "exec on $h does not see hostname $h"
done

# one rank per host, each sees its own hostname (gethostname through MPI_Get_processor_name's source)
got=$(timeout 60 "$VF" mpirun "${VFN[@]}" -- hostname | sort | tr '\n' ' ')
want=$(printf '%s\n' "${hosts[@]}" | sort | tr '\n' ' ')
[ "$got" = "$want" ] || fail "mpirun hostname gave '$got', expected '$want'"
# meanwhile a second instance on its own subnet: two mpiruns at once, each on its own hosts
FAB_EXTRA=(ftdown2)
"$VF" up --hosts 2 --name ftdown2
s1=$("$VF" addr 1 "${VFN[@]}")
s2=$("$VF" addr 1 --name ftdown2)
[ "${s1%.*}" != "${s2%.*}" ] || fail "two instances share the subnet ${s1%.*}.0/24"
timeout 60 "$VF" mpirun --name ftdown2 -- hostname >"$FAB_TMP/second.txt" &
p2=$!
FAB_BG+=("$p2")
got=$(timeout 60 "$VF" mpirun "${VFN[@]}" -- -np 6 hostname | sort | uniq -c | awk '{print $1}' | tr '\n' ' ')
[ "$got" = "2 2 2 " ] || fail "mpirun -np 6 gave per-host counts '$got', expected 2 2 2"
note "mpirun: one rank per host by default, -np 6 spreads 2 per host"
wait $p2 || fail "mpirun on the second instance failed"
got=$(sort "$FAB_TMP/second.txt" | tr '\n' ' ')
[ "$got" = "ftdown2-h1 ftdown2-h2 " ] || fail "second instance mpirun gave '$got'"
"$VF" down --name ftdown2
note "second instance on ${s2%.*}.0/24 beside ${s1%.*}.0/24: ok"

# fault commands install qdiscs and clear removes them
h1=${hosts[0]} h2=${hosts[1]}
ns1=vf-ftdown-h1
"$VF" throttle-link "$h1" "$h2" 50mbit "${VFN[@]}"
# shellcheck disable=SC2046,SC2183
hex2=$(printf '%02x%02x%02x%02x' $(tr . ' ' <<<"$("$VF" addr "$h2" "${VFN[@]}")"))
fab_has 'htb.*rate 50Mbit' ip netns exec $ns1 tc class show dev eth0 || fail "throttle-link: no htb class"
fab_has "match $hex2/ffffffff at 16" ip netns exec $ns1 tc filter show dev eth0 parent 1: ||
  fail "throttle-link: no u32 match on the address of $h2"
! fab_has 'tbf|htb' tc qdisc show dev vf-ftdown-2 || fail "throttle-link touched the link into $h2"
"$VF" throttle "$h1" 200mbit "${VFN[@]}"
fab_has 'tbf.*rate 200Mbit' tc qdisc show dev vf-ftdown-1 || fail "throttle: no tbf into $h1"
fab_has 'tbf.*rate 200Mbit' ip netns exec $ns1 tc qdisc show dev eth0 || fail "throttle: no tbf out of $h1"
fab_has "match $hex2/ffffffff at 16" ip netns exec $ns1 tc filter show dev eth0 parent 2: ||
  fail "throttle dropped the throttle-link filter"
"$VF" queue "$h1" 20 "${VFN[@]}" 2>/dev/null
# tc prints the queue as latency: limit = rate * lat + burst
lim=$(tc qdisc show dev vf-ftdown-1 | awk '{ for (i = 1; i < NF; i++) { if ($i == "burst") b = $(i + 1) + 0;
  if ($i == "lat") { l = $(i + 1) + 0; if ($(i + 1) ~ /ms$/) l *= 1000 } } } END { printf "%d", 25e6 * l / 1e6 + b }')
[ $((lim - 20 * 1514)) -le 300 ] && [ $((20 * 1514 - lim)) -le 300 ] || fail "queue 20: tbf limit ~$lim, expected $((20 * 1514))"
"$VF" link-down "$h2" "${VFN[@]}"
fab_has 'state DOWN' ip -o link show vf-ftdown-2 || fail "link-down: vf-ftdown-2 is not down"
"$VF" link-up "$h2" "${VFN[@]}"
! fab_has 'state DOWN' ip -o link show vf-ftdown-2 || fail "link-up: vf-ftdown-2 is still down"
"$VF" clear "${VFN[@]}"
! fab_has 'tbf|htb' tc qdisc show dev vf-ftdown-1 || fail "clear left a qdisc into $h1"
! fab_has 'tbf|htb' ip netns exec $ns1 tc qdisc show dev eth0 || fail "clear left a qdisc out of $h1"
note "throttle, throttle-link, queue, link-down/up, clear: ok"

# usage errors and refusal without root: exit 2 / 1 with one line
set +e
out=$("$VF" throttle nosuchhost 1mbit "${VFN[@]}" 2>&1); rc=$?
[ $rc = 2 ] && [ "$(wc -l <<<"$out")" = 1 ] || fail "unknown host: rc $rc, '$out'"
out=$("$VF" throttle "$h1" fast "${VFN[@]}" 2>&1); rc=$?
[ $rc = 2 ] || fail "bad rate: rc $rc, '$out'"
if command -v setpriv >/dev/null; then
  out=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$VF" up --hosts 2 --name ftnobody 2>&1); rc=$?
  [ $rc = 1 ] && [ "$(wc -l <<<"$out")" = 1 ] && grep -q root <<<"$out" || fail "not root: rc $rc, '$out'"
fi
set -e

# teardown with a process still inside a namespace; `down` returns only when everything is gone
"$VF" exec "$h1" "${VFN[@]}" -- sleep 300 &
FAB_BG+=("$!")
sleep 0.3
"$VF" down "${VFN[@]}"
fab_assert_clean
"$VF" down "${VFN[@]}" || fail "a second down must succeed"
echo "PASS"
