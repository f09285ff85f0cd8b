#!/bin/sh
# scripts/gpu_check.sh checks its prerequisites first: each missing one is a single line
# "gpu_check: ..." on stderr, exit 2, nothing built, and OUTDIR holds only gpu_check.txt and
# gpu_check.json (which name what is missing). Runs the script with PATH set to a folder of fakes
# (python3 printing what scripts/gpu/torch_info.py prints on a GPU machine or on a CPU-only one,
# nvidia-smi, cmake, ninja, c++, dpkg-deb, id) plus links to the few utilities the check uses, so
# the host's own tools (a real python3, cmake, root) decide nothing. A fake deps folder (a
# PACKAGES.txt and an empty .deb) stands for scripts/gpu_deps.sh's. Seconds, any host.
#   gpu_check_prereq_test.sh REPO
set -eu
repo=$1
script=$repo/scripts/gpu_check.sh
tmp=$(mktemp -d /tmp/geotrain-gpu-prereq.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
fail() { echo "FAIL: $*"; exit 1; }

sys=$tmp/sys
mkdir "$sys"
for t in sh bash sed grep head tail mkdir rm dirname cat tr; do
  p=$(command -v $t) || fail "$t not found on this host"
  ln -s "$p" "$sys/$t"
done
fake=$tmp/fake
mkdir "$fake"
cat > "$fake/python3" << 'PY'
#!/bin/sh
# torch_info.py's output; FAKE_TORCH: cuda (default), cpu (a CPU-only build), nodevice (CUDA
# build, no usable GPU), none (torch not importable)
case ${FAKE_TORCH:-cuda} in
  none) echo "error=ModuleNotFoundError: No module named 'torch'"; exit 1 ;;
  cpu) printf 'torch=2.11.0+cpu\npython=3.12.3\ncmake_prefix=/x\ncuda_build=\ncuda_available=0\ndevices=0\nnccl=\ngloo=1\n' ;;
  nodevice) printf 'torch=2.11.0+cu130\npython=3.12.3\ncmake_prefix=/x\ncuda_build=13.0\ncuda_available=0\ndevices=0\nnccl=2.27.7\ngloo=1\n' ;;
  *) printf 'torch=2.11.0+cu130\npython=3.12.3\ncmake_prefix=/x\ncuda_build=13.0\ncuda_available=1\ndevices=1\nnccl=2.27.7\ngloo=1\ngpu0=NVIDIA H100 80GB HBM3|85000000000|9.0\n' ;;
esac
PY
printf '#!/bin/sh\n[ "$1" = -L ] && echo "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-0)"\nexit 0\n' > "$fake/nvidia-smi"
printf '#!/bin/sh\necho "cmake version ${FAKE_CMAKE_VERSION:-3.28.3}"\n' > "$fake/cmake"
printf '#!/bin/sh\nexit 0\n' > "$fake/ninja"
printf '#!/bin/sh\nexit 0\n' > "$fake/c++"
printf '#!/bin/sh\nexit 0\n' > "$fake/dpkg-deb"
printf '#!/bin/sh\n[ "$1" = -u ] && echo "${FAKE_UID:-0}"\nexit 0\n' > "$fake/id"
chmod +x "$fake"/*
deps=$tmp/deps
mkdir "$deps"
printf '# fake\nlibfake 1.0 0 build: test\n' > "$deps/PACKAGES.txt"
: > "$deps/libfake_1.0_amd64.deb"

n=0
# expect NAME EXIT EXPECTED_OUTPUT [env VAR=value...] -- [script args...]: runs the script with
# PATH=fakes:utilities (a python3-less PATH when NAME says so), compares its whole output.
expect() {
  name=$1 want_rc=$2 want=$3
  shift 3
  n=$((n + 1))
  out=$tmp/out$n
  envs=""
  while [ $# -gt 0 ] && [ "$1" != -- ]; do envs="$envs $1"; shift; done
  shift
  path=$fake:$sys
  if [ "$name" = no-python ]; then
    mkdir -p "$tmp/nopy"; cp "$fake"/* "$tmp/nopy/"; rm "$tmp/nopy/python3"; path=$tmp/nopy:$sys
  fi
  set +e
  got=$(env -i HOME="$tmp" PATH="$path" $envs "$sys/bash" "$script" "$out" --build-dir "$tmp/build" "$@" 2>&1)
  rc=$?
  set -e
  [ "$rc" = "$want_rc" ] || fail "$name: exit $rc, expected $want_rc; output: $got"
  [ "$got" = "$want" ] || fail "$name: output
$got
expected
$want"
  [ ! -e "$tmp/build" ] || fail "$name: the build folder was created"
  for f in "$out"/* "$out"/.[!.]*; do
    [ -e "$f" ] || continue
    case ${f##*/} in gpu_check.txt|gpu_check.json) ;; *) fail "$name: OUTDIR holds ${f##*/}" ;; esac
  done
  if [ "$want_rc" = 2 ]; then
    grep -q '"status": "prerequisites missing"' "$out/gpu_check.json" || fail "$name: gpu_check.json: $(cat "$out/gpu_check.json")"
    echo "$want" | sed 's/^gpu_check: /missing: /' > "$tmp/want.txt"
    grep '^missing: ' "$out/gpu_check.txt" | cmp -s - "$tmp/want.txt" || fail "$name: gpu_check.txt: $(cat "$out/gpu_check.txt")"
  fi
  echo "ok: $name"
}

expect all-present 0 "gpu_check: prerequisites present (gpu)" -- --deps "$deps" --check-only
expect no-python 2 "gpu_check: python3 not found (set PYTHON to a python3 that has PyTorch with CUDA)" \
  -- --deps "$deps" --check-only
expect no-torch 2 "gpu_check: python3 cannot import torch (ModuleNotFoundError: No module named 'torch')" \
  FAKE_TORCH=none -- --deps "$deps" --check-only
expect cpu-torch 2 "gpu_check: python3's torch 2.11.0+cpu has no CUDA (torch.version.cuda is None): a CUDA build of PyTorch is needed" \
  FAKE_TORCH=cpu -- --deps "$deps" --check-only
expect no-usable-gpu 2 "gpu_check: torch.cuda.is_available() is False (torch 2.11.0+cu130, CUDA 13.0): no usable GPU or driver" \
  FAKE_TORCH=nodevice -- --deps "$deps" --check-only
expect no-deps 2 "gpu_check: deps folder $tmp/nodeps not found (prepare it with scripts/gpu_deps.sh $tmp/nodeps on Debian 12 with network, and bring it along)" \
  -- --deps "$tmp/nodeps" --check-only
rm "$deps/libfake_1.0_amd64.deb"
expect deps-incomplete 2 "gpu_check: $deps lacks 1 of the packages its PACKAGES.txt names (first: libfake; run scripts/gpu_deps.sh $deps again)" \
  -- --deps "$deps" --check-only
: > "$deps/libfake_1.0_amd64.deb"
expect old-cmake 2 "gpu_check: cmake 3.22 is older than 3.25 (or its version is unreadable)" \
  FAKE_CMAKE_VERSION=3.22.1 -- --deps "$deps" --check-only
expect not-root 2 "gpu_check: not root: network namespaces and tc need root (run as root, or --no-netns to run every case unshaped on loopback)" \
  FAKE_UID=1000 -- --deps "$deps" --check-only
expect not-root-no-netns 0 "gpu_check: prerequisites present (gpu)" FAKE_UID=1000 -- --deps "$deps" --no-netns --check-only
# Every missing prerequisite at once, one line each, in a fixed order; without --check-only too.
expect several 2 "gpu_check: python3's torch 2.11.0+cpu has no CUDA (torch.version.cuda is None): a CUDA build of PyTorch is needed
gpu_check: deps folder $tmp/nodeps not found (prepare it with scripts/gpu_deps.sh $tmp/nodeps on Debian 12 with network, and bring it along)
gpu_check: not root: network namespaces and tc need root (run as root, or --no-netns to run every case unshaped on loopback)" \
  FAKE_TORCH=cpu FAKE_UID=1000 -- --deps "$tmp/nodeps"

# Bad arguments: exit 2 and no OUTDIR at all.
set +e
got=$(env -i PATH="$fake:$sys" "$sys/bash" "$script" "$tmp/usage-out" --bogus 2>&1)
rc=$?
set -e
[ $rc = 2 ] || fail "usage: exit $rc"
echo "$got" | head -n 1 | grep -qx "gpu_check: unknown option --bogus" || fail "usage: $got"
[ ! -e "$tmp/usage-out" ] || fail "usage: OUTDIR was created"
echo "ok: usage"
echo "PASS: gpu_check.sh prerequisites ($n cases and a usage error)"
