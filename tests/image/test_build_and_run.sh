#!/usr/bin/env bash
# deploy/Containerfile built here with no registry (a Debian 12 base from mmdebstrap, podman import) and run:
# `fabcheck --version`, a 2-rank sweep inside (mpirun, exit 0, data check clean), and the runtime image at most
# 250 MB (1 MB = 1e6 bytes). Then the MPIJob rehearsal (test_mpijob_rehearsal.sh) runs on the image it leaves.
# ~5 min cold on 2 cores alone; its compiler runs at SCHED_IDLE beside the other labels, so it bounds itself to
# 1500 s.
source "$(dirname "$0")/lib.sh"
img_init 1500
img_base
img_build

out=$(podman run --rm "$IMG" fabcheck --version) || fail "fabcheck --version in the image failed"
note "fabcheck --version: $(head -1 <<<"$out")"
podman run --rm -v "$IMG_TMP:/reports" "$IMG" mpirun -np 2 --allow-run-as-root --oversubscribe \
  --mca btl self,vader,tcp fabcheck sweep -b 8 -e 1M -f 2 --json /reports/sweep.json >"$IMG_TMP/sweep.out" 2>&1 ||
  fail "2-rank sweep in the image: $(tail -5 "$IMG_TMP/sweep.out")"
grep -q '^# Avg bus bandwidth' "$IMG_TMP/sweep.out" || fail "2-rank sweep: no nccl-tests table: $(tail -5 "$IMG_TMP/sweep.out")"
python3 - "$IMG_TMP/sweep.json" <<'PY' || fail "2-rank sweep: the report"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["topology"]["nranks"] == 2, d["topology"]
pts = [p for s in d["sweeps"] for p in s["points"]]
assert len(pts) == 36 and all(p["wrong"] == 0 for p in pts), (len(pts), "points (18 sizes x 2 placements); wrong data?")
print(f"2-rank sweep in the image: {len(pts)} points, 0 wrong, run.launcher {d['run']['launcher']['kind']}")
PY
limit=250000000
[ "$IMG_SIZE_BYTES" -le $limit ] || fail "image is $IMG_SIZE_BYTES bytes, over $limit"
echo "image size: $IMG_SIZE_BYTES bytes (limit $limit); build $IMG_BUILD_S s"
echo PASS
