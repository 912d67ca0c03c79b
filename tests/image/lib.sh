# shellcheck shell=bash
# Shared by the image tests (sourced): podman with this machine's settings, the Debian 12 base and the image.
#   img_init LIMIT_S          bound the whole test (TERM, then the cleanup trap), skip (77) without podman/mmdebstrap
#   img_base                  localhost/debian:12 from mmdebstrap + podman import (kept between runs)
#   img_stages                the Containerfile's package stages (toolchain, runtime) built and tagged ahead of the
#                             source (tests/image/prebuild.sh, which ci/test starts beside the host build)
#   img_build                 localhost/fabcheck:ci from deploy/Containerfile (IMAGE_JOBS compile jobs, default
#                             every core); sets IMG, prints time and size. Its build stage stays tagged
#                             (localhost/fabcheck:ci-build): the next build takes both stages' apt-get layers
#                             from podman's layer cache and compiles only.
# The podman settings this machine needs (a lower ulimit: no CAP_SYS_RESOURCE; runc: crun refuses its cgroup
# layout) live in a containers.conf of the test's own (CONTAINERS_CONF), never in the recipe.
set -euo pipefail
IMG_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SRC=${FABCHECK_SOURCE_DIR:-$(cd "$IMG_DIR/../.." && pwd)}
BASE_IMG=localhost/debian:12
IMG=localhost/fabcheck:ci
BUILD_IMG=localhost/fabcheck:ci-build
note() { echo "[image $(date +%H:%M:%S)] $*" >&2; }
fail() {
  echo "FAIL: $*" >&2
  exit 1
}

img_init() {
  if [ -z "${_IMG_BOUNDED:-}" ]; then
    _IMG_BOUNDED=1 exec timeout -s TERM -k 20 "$1" bash "$0"
  fi
  local t
  for t in podman mmdebstrap runc; do
    command -v "$t" >/dev/null || {
      echo "skipped: $t not installed (ci/setup installs podman, mmdebstrap, runc)" >&2
      exit 77
    }
  done
  IMG_TMP=$(mktemp -d)
  export CONTAINERS_CONF=$IMG_TMP/containers.conf
  printf '[containers]\ndefault_ulimits = ["nofile=20000:20000", "nproc=32768:32768"]\n[engine]\nruntime = "runc"\n' \
    >"$CONTAINERS_CONF"
  IMG_CLEANUP=()
  trap _img_cleanup EXIT
  trap 'echo "FAIL: interrupted or over the time limit" >&2; exit 124' INT TERM
}

_img_cleanup() {
  local rc=$? c
  for c in "${IMG_CLEANUP[@]:-}"; do [ -z "$c" ] || eval "$c" >/dev/null 2>&1 || true; done
  rm -rf "$IMG_TMP"
  exit $rc
}

# The mirror apt uses here (deb822 or one-line sources), for mmdebstrap.
_img_mirror() {
  local m
  m=$(grep -h '^URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '{print $2}' | grep -m1 '/debian$' || true)
  [ -n "$m" ] || m=$(grep -h '^deb ' /etc/apt/sources.list 2>/dev/null | awk '{print $2}' | grep -m1 '/debian/\?$' || true)
  echo "${m:-http://deb.debian.org/debian}"
}

# buildah's layer cache matches no step of a build FROM an image made by `podman import`: every build ran every
# step anew, both stages' apt-get installs included (the build stage's took 180-210 s beside other builds; podman
# 4.3, 2026-12-07). FROM an image built on the import it matches: the base is that image, labelled.
_img_cacheable_base() {
  printf 'FROM %s\nLABEL org.fabcheck.base=bookworm\n' "$BASE_IMG" >"$IMG_TMP/base.containerfile"
  podman build --quiet -f "$IMG_TMP/base.containerfile" -t "$BASE_IMG" "$IMG_TMP" >/dev/null ||
    fail "podman build of the base on the import failed"
}

img_base() {
  if podman image exists "$BASE_IMG"; then
    [ "$(podman image inspect --format '{{index .Labels "org.fabcheck.base"}}' "$BASE_IMG")" = bookworm ] ||
      _img_cacheable_base
    note "base $BASE_IMG: kept from an earlier run"
    return
  fi
  local t0=$SECONDS
  # minbase, merged /usr without the usrmerge package (it pulls perl), no apt caches, and downloaded .debs removed
  # after every install as Docker Hub's debian image does (else each install layer keeps its .debs)
  mmdebstrap --quiet --variant=minbase --hook-dir=/usr/share/mmdebstrap/hooks/merged-usr \
    --customize-hook='printf "%s\n" "DPkg::Post-Invoke { \"rm -f /var/cache/apt/archives/*.deb /var/cache/apt/*.bin || true\"; };" "Dir::Cache::pkgcache \"\";" "Dir::Cache::srcpkgcache \"\";" >"$1/etc/apt/apt.conf.d/docker-clean"' \
    --customize-hook='rm -f "$1"/var/cache/apt/*.bin' \
    bookworm "$IMG_TMP/base.tar.zst" "$(_img_mirror)" || fail "mmdebstrap of the Debian 12 base failed"
  podman import "$IMG_TMP/base.tar.zst" "$BASE_IMG" >/dev/null || fail "podman import of the base failed"
  rm -f "$IMG_TMP/base.tar.zst"
  _img_cacheable_base
  note "base $BASE_IMG: mmdebstrap + import in $((SECONDS - t0)) s"
}

img_stages() {
  local t0=$SECONDS s
  for s in toolchain runtime; do
    podman build --quiet -f "$SRC/deploy/Containerfile" --build-arg BASE="$BASE_IMG" --target "$s" \
      -t "localhost/fabcheck:ci-$s" "$SRC" >"$IMG_TMP/$s.log" 2>&1 ||
      { tail -30 "$IMG_TMP/$s.log" >&2; fail "podman build --target $s failed"; }
  done
  note "stages toolchain, runtime: built in $((SECONDS - t0)) s"
}

img_build() {
  local t0=$SECONDS before
  # SCHED_IDLE: the compiler takes only CPU time nothing else wants. Beside it in CI run the MPI tests, whose
  # busy-polling ranks lose their turn to a compiler: the mpi label took 462 s beside it at nice 0, 170-210 s
  # without. mpi.sweep.agg.np2 beside two CPU hogs (2026-12-07, other builds running): 22-26 s without, over
  # 300 s at nice 0, 116-139 s at nice 19, 48 s at SCHED_IDLE.
  local build=(chrt --idle 0 podman build --quiet -f "$SRC/deploy/Containerfile" --build-arg BASE="$BASE_IMG"
    --build-arg JOBS="${IMAGE_JOBS:-}")
  before=$(podman images -q -f dangling=true | sort)
  # the build stage under its own tag, then the image (the build stage from the layer cache)
  { "${build[@]}" --target build -t "$BUILD_IMG" "$SRC" && "${build[@]}" -t "$IMG" "$SRC"; } \
    >"$IMG_TMP/build.log" 2>&1 || { tail -30 "$IMG_TMP/build.log" >&2; fail "podman build deploy/Containerfile failed"; }
  # the build stage and the image these tags replaced: removed with the layers only they used (the apt-get layers
  # stay: the new ones are built on them), they were ours (not other dangling images)
  comm -13 <(echo "$before") <(podman images -q -f dangling=true | sort) | xargs -r podman rmi -f >/dev/null 2>&1 || true
  IMG_BUILD_S=$((SECONDS - t0))
  IMG_SIZE_BYTES=$(podman image inspect --format '{{.Size}}' "$IMG")
  note "image $IMG: built in $IMG_BUILD_S s, $(awk -v b="$IMG_SIZE_BYTES" 'BEGIN { printf "%.1f", b / 1e6 }') MB"
}
