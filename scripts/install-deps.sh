#!/usr/bin/env bash
# Installs the Debian packages geotrain needs. Idempotent: apt-get runs only when something is
# missing. Needs root (or sudo) the first time.
set -euo pipefail

PACKAGES=(
  cmake ninja-build g++ pkg-config git
  libsimgrid-dev libtorch-dev libgloo-dev libeigen3-dev libfmt-dev libboost-graph-dev
  catch2 libyaml-cpp-dev nlohmann-json3-dev libcli11-dev
  python3 python3-matplotlib
  iproute2 iptables libnetfilter-queue-dev libmnl-dev procps kmod
  util-linux iputils-ping   # setpriv/nsenter and ping in the emulated network's tests
  slurm-wlm munge           # the sweep's Slurm job-array test (tests/sweep, label slurm)
  openssh-server openssh-client iperf3   # the ssh rig of real/ (tests/real_rig, label real)
  clang-14 libclang-rt-14-dev   # the sanitized tests and the fuzzer (scripts/sanitize.sh)
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#PACKAGES[@]} packages present"
  exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "install-deps: installing ${missing[*]}"
$SUDO apt-get update -q
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
