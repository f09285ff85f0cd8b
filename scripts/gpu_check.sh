#!/usr/bin/env bash
# The GPU check (docs/gpu.md): on a bare GPU machine (no package manager, no network), builds
# geotrain against python3's PyTorch and checks, in one run of at most about 8 minutes on 16 cores:
#   (a) NCCL between two processes on the one GPU: all-reduce and send/recv (scripts/gpu/nccl_pair.py);
#   (b) `geotrain emulate` of scenarios/gpu/ (DDP and DiLoCo, 2 and 4 ranks sharing the GPU,
#       device cuda, collectives nccl), in shaped network namespaces where the machine allows them
#       (probed first), else `--unshaped` on loopback;
#   (c) `geotrain compare` of each run (predicted vs measured iteration time), and a nominal
#       `geotrain simulate` (the scenario's H100 profile, no measurement);
#   (d) OUTDIR/gpu_check.json and gpu_check.txt: versions (torch, CUDA, NCCL, driver, GPU, OS,
#       kernel), what ran and how long each step took, per case predicted vs measured and the
#       error, what was not possible there.
#
#   scripts/gpu_check.sh OUTDIR [--deps DIR] [--cases LIST] [--no-netns] [--budget S]
#                        [--build-dir DIR] [--check-only] [--rehearse-cpu]
#
# Prerequisites (checked first; each missing one is a line "gpu_check: ...", then exit 2):
#   - python3 (or $PYTHON) with PyTorch built with CUDA, torch.cuda.is_available() true;
#   - a GPU: nvidia-smi -L lists one, or torch sees one;
#   - cmake >= 3.25, ninja, a C++ compiler (c++, g++, clang++ or $CXX);
#   - the dependency folder (--deps, default .gpu-deps): the Debian packages that
#     scripts/gpu_deps.sh downloads (on a Debian 12 machine with network), all of those its
#     PACKAGES.txt names, and dpkg-deb, or ar + tar + xz, to unpack them into a private prefix
#     (BUILD/deps; never into /);
#   - root, for network namespaces and tc (--no-netns: every case unshaped, no root needed).
# Without them: OUTDIR/gpu_check.{txt,json} name what is missing; nothing is built.
#
# Options:
#   --deps DIR       dependency folder (default .gpu-deps)
#   --cases LIST     comma-separated scenarios/gpu/ names (default ddp_2,diloco_2,ddp_4,diloco_4)
#   --no-netns       skip the namespace probe and run every case with --unshaped
#   --budget S       stop starting new cases after S seconds in all (default 420)
#   --build-dir DIR  build tree (default build-gpu; with --rehearse-cpu build-gpu-rehearse, and a
#                    DIR that already holds geotrain and geotrain-worker, or geotrain with
#                    $GEOTRAIN_WORKER naming a worker, is used as it is)
#   --check-only     check the prerequisites, write the summary, exit 0 or 2
#   --rehearse-cpu   the same flow on a machine without a GPU: Debian's LibTorch (from
#                    scripts/install-deps.sh), device cpu, collectives p2p, a tiny model
#                    (--set model.*), --unshaped unless root; python3 with torch and the deps
#                    folder are optional (given --deps, the build uses it as on the GPU machine)
# OUTDIR holds at most five files, flat: gpu_check.json, gpu_check.txt, gpu_check.log (every
# step's log tail), comparisons.csv (comparison.csv rows of every case) and runs.tar.gz (each
# case's run folders without traces). Exit: 0 every step passed, 1 a step failed (the summary
# says which), 2 a prerequisite is missing or the arguments are wrong.
set -uo pipefail

usage() { sed -n '2,/^set -uo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; }
die_usage() { echo "gpu_check: $*" >&2; echo "usage: scripts/gpu_check.sh OUTDIR [--deps DIR] [--cases LIST] [--no-netns] [--budget S] [--build-dir DIR] [--check-only] [--rehearse-cpu] (--help)" >&2; exit 2; }

out=""
deps=""
cases="ddp_2,diloco_2,ddp_4,diloco_4"
no_netns=0
budget=420
build=""
check_only=0
rehearse=0
while [ $# -gt 0 ]; do
  case $1 in
    -h|--help) usage; exit 0 ;;
    --deps) [ $# -ge 2 ] || die_usage "--deps needs a folder"; deps=$2; shift 2 ;;
    --cases) [ $# -ge 2 ] || die_usage "--cases needs a list"; cases=$2; shift 2 ;;
    --no-netns) no_netns=1; shift ;;
    --budget) [ $# -ge 2 ] || die_usage "--budget needs seconds"; budget=$2; shift 2 ;;
    --build-dir) [ $# -ge 2 ] || die_usage "--build-dir needs a folder"; build=$2; shift 2 ;;
    --check-only) check_only=1; shift ;;
    --rehearse-cpu) rehearse=1; shift ;;
    -*) die_usage "unknown option $1" ;;
    *) [ -z "$out" ] || die_usage "one OUTDIR only (got '$out' and '$1')"; out=$1; shift ;;
  esac
done
[ -n "$out" ] || die_usage "OUTDIR is required"
case $budget in ''|*[!0-9]*) die_usage "--budget takes whole seconds, got '$budget'" ;; esac
for c in ${cases//,/ }; do
  case $c in *[!A-Za-z0-9_.-]*|'') die_usage "--cases: bad name '$c'" ;; esac
done

repo=$(cd "$(dirname "$0")/.." && pwd)
abs() { case $1 in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }  # relative to the caller's folder
[ -z "$deps" ] || deps=$(abs "$deps")
[ -z "$build" ] || build=$(abs "$build")
mkdir -p "$out" || { echo "gpu_check: cannot create $out" >&2; exit 2; }
out=$(cd "$out" && pwd)
[ "$out" != "$repo" ] || die_usage "OUTDIR must not be the repository itself"
rm -f "$out/gpu_check.json" "$out/gpu_check.txt" "$out/gpu_check.log" "$out/comparisons.csv" "$out/runs.tar.gz"
cd "$repo" || exit 2
deps_given=0
if [ -n "$deps" ]; then deps_given=1; else deps=.gpu-deps; fi
if [ -z "$build" ]; then
  if [ $rehearse = 1 ]; then build=build-gpu-rehearse; else build=build-gpu; fi
fi
mode=gpu
[ $rehearse = 0 ] || mode=rehearse-cpu
t_start=${EPOCHREALTIME/./}

# ---- prerequisites -------------------------------------------------------------------------
missing=()
need() { missing+=("$1"); }
json_str() { local s=${1//\\/\\\\}; s=${s//\"/\\\"}; printf '"%s"' "${s//$'\t'/ }"; }

py=${PYTHON:-python3}
py_ok=0
torch_info=""
if command -v "$py" >/dev/null 2>&1; then
  torch_info=$("$py" scripts/gpu/torch_info.py 2>&1)
  info() { printf '%s\n' "$torch_info" | sed -n "s/^$1=//p" | head -n 1; }
  if [ -n "$(info torch)" ]; then
    py_ok=1
  elif [ $rehearse = 0 ]; then
    err=$(info error); [ -n "$err" ] || err=$(printf '%s' "$torch_info" | tail -n 1)
    need "$py cannot import torch ($err)"
  fi
  if [ $py_ok = 1 ] && [ $rehearse = 0 ]; then
    if [ -z "$(info cuda_build)" ]; then
      need "$py's torch $(info torch) has no CUDA (torch.version.cuda is None): a CUDA build of PyTorch is needed"
    elif [ "$(info cuda_available)" != 1 ]; then
      need "torch.cuda.is_available() is False (torch $(info torch), CUDA $(info cuda_build)): no usable GPU or driver"
    fi
  fi
else
  info() { :; }
  [ $rehearse = 1 ] || need "$py not found (set PYTHON to a python3 that has PyTorch with CUDA)"
fi
if [ $rehearse = 0 ]; then
  gpus_smi=0
  if command -v nvidia-smi >/dev/null 2>&1; then gpus_smi=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU '); fi
  gpus_torch=$(info devices); gpus_torch=${gpus_torch:-0}
  if [ "$gpus_smi" = 0 ] && [ "$gpus_torch" = 0 ]; then
    if command -v nvidia-smi >/dev/null 2>&1; then
      need "no GPU visible (nvidia-smi -L lists none, torch sees 0 devices)"
    else
      need "no GPU visible (nvidia-smi not found, torch sees 0 devices)"
    fi
  fi
fi
# The worker: the build's own, except that a rehearsal may name another (GEOTRAIN_WORKER, which
# geotrain emulate reads too). The GPU check always uses the one it built.
if [ $rehearse = 1 ] && [ -n "${GEOTRAIN_WORKER:-}" ]; then worker=$(abs "$GEOTRAIN_WORKER"); else worker=$build/geotrain-worker; fi
reuse_build=0
if [ $rehearse = 1 ] && [ -x "$build/geotrain" ] && [ -x "$worker" ]; then reuse_build=1; fi
if [ $reuse_build = 0 ]; then
  if ! command -v cmake >/dev/null 2>&1; then
    need "cmake not found (3.25 or newer)"
  else
    v=$(cmake --version 2>/dev/null | sed -n 's/^cmake version \([0-9]*\)\.\([0-9]*\).*/\1 \2/p' | head -n 1)
    set -- $v
    if [ $# -ne 2 ] || [ "$1" -lt 3 ] || { [ "$1" -eq 3 ] && [ "$2" -lt 25 ]; }; then
      need "cmake ${1:-?}.${2:-?} is older than 3.25 (or its version is unreadable)"
    fi
  fi
  command -v ninja >/dev/null 2>&1 || need "ninja not found"
  cxx=${CXX:-}
  if [ -z "$cxx" ]; then for c in c++ g++ clang++; do command -v $c >/dev/null 2>&1 && { cxx=$c; break; }; done; fi
  if [ -z "$cxx" ] || ! command -v "$cxx" >/dev/null 2>&1; then need "no C++ compiler (c++, g++ or clang++ on PATH, or set CXX)"; fi
  if [ $rehearse = 1 ] && [ ! -f /usr/lib/x86_64-linux-gnu/cmake/Torch/TorchConfig.cmake ]; then
    need "Debian's LibTorch not found (/usr/lib/x86_64-linux-gnu/cmake/Torch: bash scripts/install-deps.sh)"
  fi
fi
use_deps=0
if [ $rehearse = 0 ] || [ $deps_given = 1 ]; then
  use_deps=1
  if [ ! -d "$deps" ]; then
    need "deps folder $deps not found (prepare it with scripts/gpu_deps.sh $deps on Debian 12 with network, and bring it along)"
  elif [ ! -f "$deps/PACKAGES.txt" ]; then
    need "$deps/PACKAGES.txt not found (not a folder of scripts/gpu_deps.sh: run it again)"
  else
    absent=()
    while read -r p _; do
      case $p in '#'*|'') continue ;; esac
      compgen -G "$deps/${p}_*.deb" >/dev/null || absent+=("$p")
    done < "$deps/PACKAGES.txt"
    [ ${#absent[@]} -eq 0 ] || need "$deps lacks ${#absent[@]} of the packages its PACKAGES.txt names (first: ${absent[0]}; run scripts/gpu_deps.sh $deps again)"
  fi
  if ! command -v dpkg-deb >/dev/null 2>&1; then
    for t in ar tar xz; do
      command -v $t >/dev/null 2>&1 || { need "cannot unpack .deb files: no dpkg-deb, and no $t for ar + tar"; break; }
    done
  fi
fi
is_root=0
[ "$(id -u)" = 0 ] && is_root=1
if [ $rehearse = 0 ] && [ $no_netns = 0 ] && [ $is_root = 0 ]; then
  need "not root: network namespaces and tc need root (run as root, or --no-netns to run every case unshaped on loopback)"
fi

write_prereq_summary() {  # STATUS: the summary when the run stops at the prerequisites
  local status=$1 m first=1
  {
    echo "gpu_check ($mode): $status"
    for m in "${missing[@]}"; do echo "missing: $m"; done
  } > "$out/gpu_check.txt"
  {
    printf '{"format": "geotrain-gpu-check", "version": 1, "mode": "%s", "status": %s, "prerequisites_missing": [' "$mode" "$(json_str "$status")"
    for m in "${missing[@]}"; do [ $first = 1 ] || printf ', '; first=0; json_str "$m"; done
    printf ']}\n'
  } > "$out/gpu_check.json"
}
if [ ${#missing[@]} -gt 0 ]; then
  for m in "${missing[@]}"; do echo "gpu_check: $m" >&2; done
  write_prereq_summary "prerequisites missing"
  exit 2
fi
if [ $check_only = 1 ]; then
  echo "gpu_check: prerequisites present ($mode)"
  write_prereq_summary "prerequisites present (--check-only: nothing else ran)"
  exit 0
fi

# ---- steps ---------------------------------------------------------------------------------
mkdir -p "$build" || { echo "gpu_check: cannot create $build" >&2; exit 2; }
build=$(cd "$build" && pwd)
work=$build/check
rm -rf "$work"
mkdir -p "$work/logs" "$work/cases"
steps=$work/steps.tsv
: > "$steps"
failed=0
elapsed_s() { echo $(( (${EPOCHREALTIME/./} - t_start) / 1000000 )); }
# run_step NAME TIMEOUT_S CMD...: runs CMD with its output in logs/NAME.log, records the outcome.
run_step() {
  local name=$1 limit=$2 rc t0 t1 status
  shift 2
  echo "gpu_check: [$(elapsed_s) s] $name"
  t0=${EPOCHREALTIME/./}
  if declare -F "$1" >/dev/null; then  # a function of this script: bounded by itself
    ("$@") > "$work/logs/$name.log" 2>&1
  else
    timeout --kill-after=10 "$limit" "$@" > "$work/logs/$name.log" 2>&1
  fi
  rc=$?
  t1=${EPOCHREALTIME/./}
  case $rc in
    0) status=ok ;;
    124|137) status="timeout after ${limit} s" ;;
    *) status="failed (exit $rc)" ;;
  esac
  [ $rc = 0 ] || { failed=1; echo "gpu_check:   $name: $status (log: $work/logs/$name.log)"; tail -n 5 "$work/logs/$name.log" | sed 's/^/    /'; }
  printf '%s\t%s\t%s\t%s\n' "$name" "$status" "$(( (t1 - t0) / 1000 ))" "$*" >> "$steps"
  return $rc
}
skip_step() { printf '%s\t%s\t0\t\n' "$1" "skipped: $2" >> "$steps"; echo "gpu_check: $1 skipped: $2"; }
note() { printf '%s\n' "$*" >> "$work/notes.txt"; }
: > "$work/notes.txt"
printf '%s\n' "$torch_info" > "$work/torch_info.txt"

# The machine, for the summary (never fails).
machine_info() {
  echo "mode=$mode"
  echo "kernel=$(uname -r)"
  [ -f /etc/os-release ] && sed -n 's/^PRETTY_NAME=//p' /etc/os-release | tr -d '"' | sed 's/^/os=/'
  echo "glibc=$(getconf GNU_LIBC_VERSION 2>/dev/null)"
  echo "cpus=$(nproc 2>/dev/null)"
  echo "memory_kib=$(sed -n 's/^MemTotal: *\([0-9]*\).*/\1/p' /proc/meminfo)"
  echo "root=$is_root"
  if command -v nvidia-smi >/dev/null 2>&1; then
    nvidia-smi --query-gpu=index,name,driver_version,memory.total,compute_cap --format=csv,noheader 2>/dev/null | sed 's/^/nvidia_smi_gpu=/' |
      grep . || nvidia-smi -L 2>/dev/null | sed 's/^/nvidia_smi_gpu=/'
    nvidia-smi 2>/dev/null | sed -n 's/.*CUDA Version: *\([0-9.]*\).*/driver_cuda=\1/p' | head -n 1
  fi
  nvcc_bin=$(command -v nvcc || { [ -x /usr/local/cuda/bin/nvcc ] && echo /usr/local/cuda/bin/nvcc; })
  [ -n "$nvcc_bin" ] && echo "nvcc=$("$nvcc_bin" --version 2>/dev/null | sed -n 's/.*release \([0-9.]*\).*/\1/p')"
  command -v cmake >/dev/null && echo "cmake=$(cmake --version | sed -n 's/^cmake version //p')"
  command -v ninja >/dev/null && echo "ninja=$(ninja --version)"
  [ -n "${cxx:-}" ] && echo "cxx=$("$cxx" --version 2>/dev/null | head -n 1)"
  for t in ip tc iptables iptables-restore sysctl unshare nsenter ping modprobe; do
    echo "tool_$t=$(command -v $t || echo absent)"
  done
  echo "cgroup=$(stat -fc %T /sys/fs/cgroup 2>/dev/null)"
}
machine_info > "$work/machine.txt" 2>/dev/null

# 1. The dependency folder, unpacked into a private prefix; wrappers for the tools it brings.
prefix=$build/deps
libdirs=""
unpack_deps() {
  rm -rf "$prefix" && mkdir -p "$prefix" "$build/deps-bin" || return 1
  local d tmp
  for d in "$deps"/*.deb; do
    if command -v dpkg-deb >/dev/null 2>&1; then
      dpkg-deb -x "$d" "$prefix" || return 1
    else
      tmp=$(mktemp -d) && (cd "$tmp" && ar x "$d" && tar -xf data.tar.* -C "$prefix") || { rm -rf "$tmp"; return 1; }
      rm -rf "$tmp"
    fi
  done
  echo "unpacked $(ls "$deps"/*.deb | wc -l) packages into $prefix"
}
tool_in_prefix() { local p; for p in "$@"; do [ -x "$prefix/$p" ] && { echo "$prefix/$p"; return 0; }; done; return 1; }
make_wrapper() {  # NAME TARGET [ARGS...]: $build/deps-bin/NAME runs TARGET with the prefix's libraries
  local name=$1; shift
  {
    echo '#!/bin/sh'
    echo "LD_LIBRARY_PATH=$libdirs\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH} XTABLES_LIBDIR=$prefix/usr/lib/x86_64-linux-gnu/xtables exec $* \"\$@\""
  } > "$build/deps-bin/$name"
  chmod +x "$build/deps-bin/$name"
}
iptables_variant=""
set_iptables_wrappers() {  # nft | legacy
  local multi
  multi=$(tool_in_prefix usr/sbin/xtables-$1-multi) || return 1
  make_wrapper iptables "$multi" iptables
  make_wrapper iptables-restore "$multi" iptables-restore
  make_wrapper iptables-save "$multi" iptables-save
  iptables_variant=$1
}
setup_tools() {  # wrappers only for what the machine lacks; its own tools come first on PATH
  local t target
  for t in ip tc sysctl; do
    command -v $t >/dev/null 2>&1 && continue
    target=$(tool_in_prefix bin/$t sbin/$t usr/bin/$t usr/sbin/$t) || continue
    make_wrapper $t "$target"
    note "tool $t: the machine has none; the deps folder's ($target)"
  done
  if ! command -v iptables >/dev/null 2>&1; then
    set_iptables_wrappers nft && note "tool iptables: the machine has none; the deps folder's iptables-nft"
  fi
  if ! command -v pkg-config >/dev/null 2>&1; then
    target=$(tool_in_prefix usr/bin/pkgconf) && make_wrapper pkg-config "$target" &&
      note "tool pkg-config: the machine has none; the deps folder's pkgconf"
  fi
  ls "$build/deps-bin"
}
deps_ok=1
if [ $use_deps = 1 ]; then
  libdirs="$prefix/usr/lib/x86_64-linux-gnu:$prefix/lib/x86_64-linux-gnu"
  if run_step deps_unpack 300 unpack_deps; then
    export PATH="$PATH:$build/deps-bin"
    setup_tools >> "$work/logs/deps_unpack.log" 2>&1
    export PKG_CONFIG_LIBDIR="$prefix/usr/lib/x86_64-linux-gnu/pkgconfig:$prefix/usr/share/pkgconfig"
    export PKG_CONFIG_SYSROOT_DIR="$prefix"
    export PKG_CONFIG_ALLOW_SYSTEM_CFLAGS=1 PKG_CONFIG_ALLOW_SYSTEM_LIBS=1
  else
    deps_ok=0
  fi
fi

# 2. Build geotrain, geotrain-worker and geotrain-delayer against python3's (or Debian's) LibTorch.
configure() {
  local args=(-S "$repo" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGEOTRAIN_WERROR=OFF)
  local prefixes=""
  if [ $rehearse = 0 ]; then
    prefixes="$(info cmake_prefix)"
    # Hopper (H100, H200): sm_90, so nothing probes the GPU at configure time.
    args+=(-DPython3_EXECUTABLE="$(command -v "$py")" -DTORCH_CUDA_ARCH_LIST=9.0 -DCMAKE_CUDA_ARCHITECTURES=90)
    local nvcc_bin
    nvcc_bin=$(command -v nvcc || { [ -x /usr/local/cuda/bin/nvcc ] && echo /usr/local/cuda/bin/nvcc; })
    [ -n "$nvcc_bin" ] && args+=(-DCMAKE_CUDA_COMPILER="$nvcc_bin" -DCUDAToolkit_ROOT="$(dirname "$(dirname "$nvcc_bin")")")
  fi
  if [ $use_deps = 1 ]; then
    prefixes="${prefixes:+$prefixes;}$prefix/usr;$prefix/usr/lib/x86_64-linux-gnu/cmake;$prefix/usr/share/cmake"
    # DT_RPATH (not RUNPATH): it also serves the libraries' own dependencies (SimGrid's ns-3),
    # so nothing needs LD_LIBRARY_PATH, which would leak into the machine's ip, tc and python.
    args+=(-DCMAKE_BUILD_RPATH="${libdirs//:/;}" -DCMAKE_EXE_LINKER_FLAGS=-Wl,--disable-new-dtags
           -DPKG_CONFIG_EXECUTABLE="$(command -v pkg-config)")
  fi
  [ -n "$prefixes" ] && args+=(-DCMAKE_PREFIX_PATH="$prefixes")
  [ -n "${cxx:-}" ] && args+=(-DCMAKE_CXX_COMPILER="$(command -v "$cxx")")
  echo "cmake ${args[*]}"
  cmake "${args[@]}"
}
built=0
if [ $reuse_build = 1 ]; then
  skip_step build "reusing $build/geotrain and $worker (--build-dir)"
  note "build: reused $build (not rebuilt)"
  built=1
elif [ $deps_ok = 0 ]; then
  skip_step configure "the deps folder did not unpack"
  skip_step build "the deps folder did not unpack"
elif run_step configure 240 configure; then
  # -k 0: one target failing still builds the others, and the log names every error.
  run_step build 420 cmake --build "$build" -j "$(nproc)" --target geotrain geotrain-worker geotrain-delayer -- -k 0 && built=1
else
  skip_step build "configure failed"
fi
gt=$build/geotrain
export GEOTRAIN_WORKER=$worker
libs_ok() {  # every library of the three binaries found (the deps prefix through RPATH)
  local b bad=0
  for b in geotrain geotrain-worker geotrain-delayer; do
    f=$build/$b
    [ $b = geotrain-worker ] && f=$worker
    [ -x "$f" ] || { [ $b = geotrain-delayer ] && [ $reuse_build = 1 ] && continue; echo "$f: not built"; bad=1; continue; }
    if ldd "$f" | grep 'not found'; then echo "$f: libraries not found (above)"; bad=1; fi
  done
  "$gt" --version || bad=1
  "$worker" --capabilities > "$work/capabilities.json" || bad=1
  cat "$work/capabilities.json"
  return $bad
}
worker_ok=0
if [ $built = 1 ]; then
  run_step binaries 60 libs_ok && worker_ok=1
else
  skip_step binaries "nothing built"
fi
if [ $worker_ok = 1 ] && [ $rehearse = 0 ]; then
  caps=$(tail -n 1 "$work/capabilities.json" 2>/dev/null)
  case $caps in *'"cuda":true'*) ;; *) note "geotrain-worker reports no CUDA: $caps"; failed=1 ;; esac
  case $caps in *'"nccl":true'*) ;; *) note "geotrain-worker reports no NCCL: $caps"; failed=1 ;; esac
fi

# 3. (a) NCCL between two processes on the one GPU.
if [ $rehearse = 0 ]; then
  run_step nccl_pair 180 "$py" scripts/gpu/nccl_pair.py --backend nccl --timeout 150
elif [ $py_ok = 1 ] && [ "$(info gloo)" = 1 ]; then
  run_step nccl_pair 180 "$py" scripts/gpu/nccl_pair.py --backend gloo --device cpu --timeout 150
else
  skip_step nccl_pair "rehearsal without python3 torch (Gloo): the two-process check needs it"
fi

# 4. Can this machine build the shaped network (namespaces, veth, bridge, HTB, netem or NFQUEUE)?
probe_ns="gtchk$$"
probe_cleanup() { ip netns del "${probe_ns}a" 2>/dev/null; ip netns del "${probe_ns}b" 2>/dev/null; return 0; }
probe_network() {
  local a=${probe_ns}a b=${probe_ns}b va=${probe_ns}x vb=${probe_ns}y ok
  trap 'probe_cleanup' EXIT INT TERM
  r() { local k=$1; shift; if "$@" >> "$work/logs/netprobe.detail" 2>&1; then echo "$k=yes"; return 0; else echo "$k=no"; return 1; fi; }
  command -v ip >/dev/null || { echo "ip=absent"; return 1; }
  command -v tc >/dev/null || echo "tc=absent"
  r netns ip netns add "$a" && r netns_b ip netns add "$b" || { probe_cleanup; return 1; }
  if r veth ip link add "$va" type veth peer name "$vb"; then
    ip link set "$va" netns "$a" && ip link set "$vb" netns "$b"
    ip -n "$a" addr add 10.254.254.1/30 dev "$va"; ip -n "$b" addr add 10.254.254.2/30 dev "$vb"
    ip -n "$a" link set "$va" up; ip -n "$b" link set "$vb" up; ip -n "$a" link set lo up
    r htb ip netns exec "$a" tc qdisc add dev "$va" root handle 1: htb default 1 &&
      r htb_class ip netns exec "$a" tc class add dev "$va" parent 1: classid 1:1 htb rate 1gbit &&
      r netem ip netns exec "$a" tc qdisc add dev "$va" parent 1:1 handle 10: netem delay 5ms
    r tbf ip netns exec "$b" tc qdisc add dev "$vb" root tbf rate 1gbit burst 128kb latency 50ms
    if command -v ping >/dev/null; then
      ok=$(ip netns exec "$a" ping -c 3 -i 0.2 -W 2 10.254.254.2 2>/dev/null | sed -n 's|.*= [0-9.]*/\([0-9.]*\)/.*|\1|p')
      echo "ping_avg_ms=${ok:-none}"
    fi
  fi
  r bridge ip -n "$a" link add "${probe_ns}br" type bridge
  if command -v iptables >/dev/null; then
    if ! r iptables ip netns exec "$a" iptables -w -L -n && [ "$iptables_variant" = nft ]; then
      set_iptables_wrappers legacy && r iptables_legacy ip netns exec "$a" iptables -w -L -n
    fi
    r nfqueue_rule ip netns exec "$a" iptables -w -A OUTPUT -p tcp -j NFQUEUE --queue-num 0 --queue-bypass
    echo "iptables_variant=${iptables_variant:-system}"
  else
    echo "iptables=absent"
  fi
  [ -e /proc/sys/net/ipv4/tcp_congestion_control ] && echo "tcp_cc=$(cat /proc/sys/net/ipv4/tcp_congestion_control)"
  probe_cleanup
  trap - EXIT INT TERM
  return 0
}
shaped=0
if [ $no_netns = 1 ]; then
  skip_step netprobe "--no-netns"
  note "network: --no-netns: every case ran --unshaped (loopback, no tc)"
elif [ $is_root = 0 ]; then
  skip_step netprobe "not root (rehearsal)"
  note "network: not root: every case ran --unshaped (loopback, no tc)"
else
  : > "$work/logs/netprobe.detail"
  run_step netprobe 60 probe_network
  cp "$work/logs/netprobe.log" "$work/netprobe.txt" 2>/dev/null
  p() { sed -n "s/^$1=//p" "$work/netprobe.txt" 2>/dev/null | head -n 1; }
  if [ "$(p netns)" = yes ] && [ "$(p veth)" = yes ] && [ "$(p htb_class)" = yes ] && [ "$(p bridge)" = yes ] &&
     { [ "$(p netem)" = yes ] || [ "$(p nfqueue_rule)" = yes ]; }; then
    shaped=1
    note "network: shaped (namespaces, veth, bridge, HTB; delay by $( [ "$(p netem)" = yes ] && echo netem || echo 'the NFQUEUE delayer'))"
  else
    note "network: this machine cannot build the shaped network ($(tr '\n' ' ' < "$work/netprobe.txt")): every case ran --unshaped"
  fi
fi

# 5. (b)(c) Each case: check, emulate, compare (predicted from the run's measured compute), and
# a nominal simulate (the scenario's device profile, nothing measured).
if [ $rehearse = 1 ]; then
  device=cpu collectives=p2p
  sets=(--set emulation.device=cpu --set emulation.collectives=p2p --set emulation.torch_threads=1
        --set model.layers=2 --set model.d_model=64 --set model.heads=4 --set model.seq_len=32
        --set model.vocab=256)
else
  device=cuda collectives=nccl
  sets=()
fi
for c in ${cases//,/ }; do
  scenario=scenarios/gpu/$c.yaml
  dir=$work/cases/$c
  mkdir -p "$dir"
  if [ ! -f "$scenario" ]; then skip_step "$c.check" "no $scenario"; failed=1; continue; fi
  if [ $worker_ok = 0 ]; then skip_step "$c.emulate" "no working build"; continue; fi
  left=$(( budget - $(elapsed_s) ))
  # A case takes about a minute on the GPU machine (estimate): none starts with less than 90 s left.
  if [ $left -lt 90 ]; then skip_step "$c.emulate" "time budget ($budget s) spent"; note "$c: not run: time budget"; continue; fi
  run_step "$c.check" 30 "$gt" check "$scenario" "${sets[@]}" || continue
  emu_args=(--device "$device" --collectives "$collectives" --out "$dir/emu")
  if [ $shaped = 1 ]; then emu_args+=(--linktest-advisory); else emu_args+=(--unshaped); fi
  limit=$(( left - 15 )); [ $limit -le 300 ] || limit=300
  if ! run_step "$c.emulate" "$limit" "$gt" emulate "$scenario" "${emu_args[@]}" "${sets[@]}"; then
    if [ $shaped = 1 ] && [ $(( budget - $(elapsed_s) )) -ge 60 ]; then
      note "$c: the shaped run failed; run again --unshaped"
      rm -rf "$dir/emu"
      run_step "$c.emulate_unshaped" 240 "$gt" emulate "$scenario" --device "$device" --collectives "$collectives" \
        --unshaped --out "$dir/emu" "${sets[@]}" || continue
    else
      continue
    fi
  fi
  run_step "$c.compare" 180 "$gt" compare "$scenario" --measured "$dir/emu" --out "$dir/compare" --seeds 5 "${sets[@]}"
  iters=$(sed -n 's/^ *steps: *\([0-9]*\).*/\1/p' "$scenario" | head -n 1)
  run_step "$c.simulate" 60 "$gt" simulate "$scenario" --iterations "${iters:-6}" --out "$dir/sim_nominal" --no-trace "${sets[@]}"
done

# 6. (d) The summary; the run folders, packed small.
summary_py=$py
[ $py_ok = 1 ] || summary_py=$(command -v python3 || echo python3)
{
  while IFS=$'\t' read -r name status secs _; do
    f=$work/logs/$name.log
    echo "==== $name: $status (${secs} ms)"
    [ -f "$f" ] || continue
    case $status in ok) tail -n 60 "$f" ;; *) tail -n 300 "$f" ;; esac
  done < "$steps"
  [ -s "$work/logs/netprobe.detail" ] && { echo "==== netprobe commands' output"; tail -n 80 "$work/logs/netprobe.detail"; }
} > "$out/gpu_check.log"
(cd "$work" && tar --exclude=trace.json --exclude='*.pt' -czf "$out/runs.tar.gz" cases steps.tsv notes.txt machine.txt torch_info.txt \
   $(ls capabilities.json netprobe.txt 2>/dev/null)) 2>> "$out/gpu_check.log"
if [ "$(stat -c %s "$out/runs.tar.gz" 2>/dev/null || echo 0)" -gt 8000000 ]; then
  (cd "$work" && tar --exclude=trace.json --exclude='*.pt' --exclude='ops*.csv' -czf "$out/runs.tar.gz" cases steps.tsv notes.txt machine.txt)
fi
if ! "$summary_py" scripts/gpu/summarize.py --work "$work" --out "$out" --failed "$failed" --elapsed "$(elapsed_s)"; then
  echo "gpu_check: the summary failed (scripts/gpu/summarize.py); steps: $work/steps.tsv" | tee -a "$out/gpu_check.txt"
  failed=1
fi
cat "$out/gpu_check.txt"
[ $failed = 0 ] || exit 1
exit 0
