#!/usr/bin/env bash
# Prepares the dependency folder that scripts/gpu_check.sh unpacks on a GPU machine without a
# package manager or network (docs/gpu.md). Runs HERE, on Debian 12 with apt and the Debian
# archive reachable; downloads with `apt-get download` only (nothing installed, nothing else
# fetched), as any user.
#   bash scripts/gpu_deps.sh [DIR]      (default: the repository's .gpu-deps, which git ignores)
# DIR gets every .deb the GPU machine needs to build and run geotrain, geotrain-worker and
# geotrain-delayer, apart from LibTorch/CUDA (PyTorch's own there) and what every Linux has:
#   - the -dev packages the build finds (CMakeLists.txt, scripts/install-deps.sh): SimGrid,
#     yaml-cpp, fmt, nlohmann-json, CLI11, Boost (headers and the graph component),
#     libnetfilter-queue/libmnl/libnfnetlink (the delayer), pkgconf (find_package(PkgConfig));
#   - the runtime libraries those load, computed: from the libraries the binaries link and the
#     tools' executables, each NEEDED library (readelf -d) that no bundled package provides is
#     looked up with `dpkg -S` (this machine has them installed: scripts/install-deps.sh) and its
#     package added, until nothing is missing. Left out on purpose: glibc (libc, libm, libdl,
#     libpthread, librt, libresolv, ld-linux), libstdc++ and libgcc_s (the GPU machine's
#     compiler brings newer ones), Eigen (nothing of geotrain includes it) and LibTorch (the worker
#     uses PyTorch's). Catch2 is there only because configuring the tree needs it (tests/);
#     gpu_check.sh builds no test;
#   - the tools of the shaped emulated network, used there only where the machine lacks its
#     own: iproute2 (ip, tc), iptables (iptables, iptables-restore) and procps (sysctl).
# Writes DIR/PACKAGES.txt: one line per package, "name version bytes reason". Prints the total.
# Re-running refreshes DIR (old .debs removed). Exit 2: bad arguments or apt cannot find a
# package; 1: a download failed.
set -euo pipefail
case ${1:-} in -h|--help) sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;; esac
dir=${1:-$(cd "$(dirname "$0")/.." && pwd)/.gpu-deps}
case $dir in /*) ;; *) dir=$PWD/$dir ;; esac
[ $# -le 1 ] || { echo "gpu_deps: expected at most one argument, the folder (default .gpu-deps)" >&2; exit 2; }
for tool in apt-get apt-cache dpkg dpkg-deb readelf; do
  command -v "$tool" >/dev/null || { echo "gpu_deps: $tool not found (run this on Debian 12)" >&2; exit 2; }
done
arch=$(dpkg --print-architecture)
[ "$arch" = amd64 ] || { echo "gpu_deps: this machine is $arch; the GPU machine is amd64" >&2; exit 2; }

# name|why. Runtime libraries of these (and of those) are added below, each with its reason.
SEEDS=(
  "libsimgrid-dev|build: SimGrid headers, simgrid.pc (sim/engine)"
  "libsimgrid3.32|run: libsimgrid.so.3.32, linked by geotrain"
  "libboost1.74-dev|build: Boost headers (graph, SimGrid's headers), BoostConfig.cmake"
  "libboost-graph1.74-dev|build: find_package(Boost COMPONENTS graph): boost_graph-config.cmake"
  "libboost-graph1.74.0|build: libboost_graph.so.1.74.0, the file Boost::graph names"
  "libyaml-cpp-dev|build: yaml-cpp headers and CMake config"
  "libyaml-cpp0.7|run: libyaml-cpp.so.0.7 (geotrain, geotrain-worker)"
  "libfmt-dev|build: fmt headers and CMake config"
  "libfmt9|run: libfmt.so.9 (geotrain, geotrain-worker)"
  "nlohmann-json3-dev|build: nlohmann-json headers and CMake config"
  "libcli11-dev|build: CLI11 headers and CMake config"
  "libnetfilter-queue-dev|build: geotrain-delayer (emu/net/delayer): libnetfilter_queue.pc"
  "libnetfilter-queue1|run: libnetfilter_queue.so.1 (geotrain-delayer)"
  "libmnl-dev|build: geotrain-delayer: libmnl.pc"
  "libnfnetlink-dev|build: libnetfilter_queue.pc requires libnfnetlink.pc"
  "catch2|configure: tests/CMakeLists.txt's find_package(Catch2 REQUIRED) (no test is built)"
  "pkgconf|build: /usr/bin/pkg-config, which find_package(PkgConfig) needs"
  "pkgconf-bin|build: /usr/bin/pkgconf, what pkg-config points to"
  "libpkgconf3|build: libpkgconf.so.3 (pkgconf)"
  "iproute2|emulated network: ip (namespaces, veth, bridge) and tc (HTB, netem)"
  "iptables|emulated network: iptables-restore (the delayer's NFQUEUE rules)"
  "procps|emulated network: sysctl (per-namespace TCP settings)"
)
# Libraries every Linux has, or that the GPU machine's compiler brings newer: not bundled.
BASE_SONAMES=" libc.so.6 libm.so.6 libdl.so.2 libpthread.so.0 librt.so.1 libresolv.so.2 libutil.so.1
  libanl.so.1 libmvec.so.1 ld-linux-x86-64.so.2 libstdc++.so.6 libgcc_s.so.1 "
# The libraries geotrain, geotrain-worker, geotrain-delayer and pkgconf load (their NEEDED).
ROOTS="libsimgrid.so.3.32 libyaml-cpp.so.0.7 libfmt.so.9 libnetfilter_queue.so.1 libpkgconf.so.3"
# ELF files of tool packages that matter (the rest of iproute2/iptables/procps is not scanned).
TOOL_ELVES="bin/ip sbin/ip usr/bin/ip sbin/tc usr/sbin/tc usr/sbin/xtables-nft-multi usr/sbin/xtables-legacy-multi
  usr/sbin/sysctl sbin/sysctl usr/bin/pkgconf"

mkdir -p "$dir"
rm -f "$dir"/*.deb "$dir/PACKAGES.txt"
work=$(mktemp -d /tmp/gpu-deps.XXXXXX)
trap 'rm -rf "$work"' EXIT INT TERM
declare -A why=()
order=()
for s in "${SEEDS[@]}"; do why[${s%%|*}]=${s#*|}; order+=("${s%%|*}"); done

download() {  # download PKG... into $dir (apt-get download writes into the current folder)
  (cd "$dir" && apt-get download -q "$@" >"$work/apt.log" 2>&1) || {
    cat "$work/apt.log" >&2
    if grep -q "Unable to locate\|Can't select\|has no installation candidate" "$work/apt.log"; then
      echo "gpu_deps: apt cannot find one of: $* (apt-get update?)" >&2; exit 2
    fi
    echo "gpu_deps: apt-get download failed for: $*" >&2; exit 1
  }
  local p
  for p in "$@"; do
    set -- "$dir/${p}"_*.deb
    dpkg-deb -x "$1" "$work/root"
    dpkg-deb -c "$1" | awk '{print $NF}' | sed 's|^\./||' > "$work/files.$p"
  done
}

download "${order[@]}"
# Closure, from the files that are loaded or linked (ROOTS, and the tools above): each NEEDED
# soname is found in the bundle, or its package is added; until nothing is missing. Libraries the
# build only links through (libboost_graph.so: geotrain uses none of its symbols) are not roots,
# so their own dependencies (Boost.Regex, ICU: 10 MB) stay out.
queue=()
for so in $ROOTS; do
  f=$(find "$work/root" -name "$so" | head -n 1)
  [ -n "$f" ] || { echo "gpu_deps: no bundled package holds $so" >&2; exit 1; }
  queue+=("$(readlink -f "$f")")
done
for e in $TOOL_ELVES; do [ -f "$work/root/$e" ] && queue+=("$work/root/$e"); done
declare -A seen=()
while [ ${#queue[@]} -gt 0 ]; do
  f=${queue[0]}
  queue=("${queue[@]:1}")
  [ -z "${seen[$f]:-}" ] || continue
  seen[$f]=1
  for so in $(readelf -d "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
    case "$BASE_SONAMES" in *" $so "*) continue ;; esac
    lib=$(find "$work/root" -name "$so" | head -n 1)
    if [ -z "$lib" ]; then
      owner=$(dpkg -S "*/$so" 2>/dev/null | awk -F': ' -v so="/$so" 'substr($2, length($2) - length(so) + 1) == so {print $1; exit}')
      owner=${owner%%:*}
      [ -n "$owner" ] || { echo "gpu_deps: no package installed here provides $so (needed by $(basename "$f")); install it (scripts/install-deps.sh) and rerun" >&2; exit 2; }
      [ -z "${why[$owner]:-}" ] || { echo "gpu_deps: $owner is bundled but holds no $so" >&2; exit 1; }
      why[$owner]="run: $so, needed by $(basename "$f")"
      order+=("$owner")
      download "$owner"
      lib=$(find "$work/root" -name "$so" | head -n 1)
      [ -n "$lib" ] || { echo "gpu_deps: $owner holds no $so" >&2; exit 1; }
    fi
    queue+=("$(readlink -f "$lib")")
  done
done

# A -dev package's libX.so link must land on a bundled file, or the build links nothing.
while IFS= read -r l; do
  t=$(readlink -f "$l" || true)
  case $t in "$work/root"/*) [ -e "$t" ] && continue ;; esac
  echo "gpu_deps: ${l#"$work/root/"} points to $(readlink "$l"), which no bundled package holds" >&2; exit 1
done < <(find "$work/root" -type l -name '*.so')

total=0
{
  echo "# geotrain GPU-machine dependencies: apt-get download on $(. /etc/os-release; echo "$PRETTY_NAME"), $(date -u +%Y-%m-%d)"
  echo "# package version bytes reason (scripts/gpu_deps.sh; unpacked by scripts/gpu_check.sh)"
  for p in "${order[@]}"; do
    set -- "$dir/${p}"_*.deb
    v=$(dpkg-deb -f "$1" Version)
    b=$(stat -c %s "$1")
    total=$((total + b))
    echo "$p $v $b ${why[$p]}"
  done
} > "$dir/PACKAGES.txt"
echo "gpu_deps: ${#order[@]} packages, $total bytes ($((total / 1048576)) MiB) in $dir (list: $dir/PACKAGES.txt)"
