#!/usr/bin/env bash
# Usage (as the command of mpirun): fake_hosts.sh SIZES CMD [ARGS...]
# Gives local ranks distinct host names so that host-aware probes (pairs) can be tested on one machine: SIZES is
# a comma list of ranks per host ("2,2": ranks 0-1 on fh0, ranks 2-3 on fh1; "3,2": 0-2 on fh0, 3-4 on fh1).
# Each rank runs CMD in its own UTS namespace (unshare --uts, root) with hostname fhI; the MPI transport is
# unchanged (shared memory between the ranks). Exits 77 when the namespace cannot be made (not root, no unshare).
set -euo pipefail
sizes=$1
shift
rank=${OMPI_COMM_WORLD_RANK:?fake_hosts.sh runs under mpirun (OMPI_COMM_WORLD_RANK unset)}
host=0 first=0
IFS=, read -r -a per <<<"$sizes"
for n in "${per[@]}"; do
  [ "$rank" -lt $((first + n)) ] && break
  first=$((first + n))
  host=$((host + 1))
done
[ "$host" -lt "${#per[@]}" ] || { echo "fake_hosts.sh: rank $rank beyond SIZES $sizes" >&2; exit 2; }
unshare --uts true 2>/dev/null || { echo "skipped: unshare --uts needs root" >&2; exit 77; }
exec unshare --uts bash -c 'hostname "$0" && exec "$@"' "fh$host" "$@"
