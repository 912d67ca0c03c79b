#!/usr/bin/env bash
# What the image build spends on downloads and package installs, done ahead: the Debian 12 base (mmdebstrap,
# ~100 s on a fresh machine) and the package stages of deploy/Containerfile (toolchain and runtime, ~200 s of
# apt-get beside other builds), tagged so that image_build_and_run takes them from podman's layer cache and only
# compiles. ci/test starts it beside the host build, which leaves the network and the disk idle, and starts the
# image label when it has ended; a failure here only costs that time back (the image test builds what is missing
# and fails on its own). Bounded to 1200 s; 77 without podman.
source "$(dirname "$0")/lib.sh"
img_init 1200
img_base
img_stages
