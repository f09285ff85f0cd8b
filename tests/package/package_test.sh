#!/bin/sh
# The Debian package as a user gets it: CPack builds geotrain_<version>_<arch>.deb from this
# build tree, the package is unpacked into a temporary root, and the geotrain found there runs
# `check` and `simulate` on a bundled scenario from a folder outside the source tree, finding its
# scenarios in <root>/usr/share/geotrain. Its declared dependencies must name what the binaries
# link and run. The temporary folder goes on exit, pass or fail.
#   package_test.sh BUILD_DIR VERSION WITH_WORKER(ON|OFF)
set -eu
build=$1
version=$2
with_worker=$3

fail() { echo "FAIL: $*"; exit 1; }
for c in cpack dpkg-deb dpkg-shlibdeps; do
  command -v "$c" > /dev/null || fail "$c not found (apt-get install cmake dpkg-dev)"
done

tmp=$(mktemp -d /tmp/geotrain-package-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM

# 1. Build the package into the temporary folder (never into the build tree's own package dir).
cpack --config "$build/CPackConfig.cmake" -B "$tmp/out" > "$tmp/cpack.log" 2>&1 ||
  { cat "$tmp/cpack.log"; fail "cpack failed"; }
arch=$(dpkg --print-architecture)
deb="$tmp/out/geotrain_${version}_${arch}.deb"
[ -f "$deb" ] || { ls "$tmp/out"; fail "expected $deb"; }
echo "built $(basename "$deb") ($(du -k "$deb" | cut -f1) KiB)"

# 2. What it declares and holds.
depends=$(dpkg-deb -f "$deb" Depends)
echo "Depends: $depends"
for d in libsimgrid libyaml-cpp libfmt iproute2 iptables python3-matplotlib; do
  echo "$depends" | grep -q "$d" || fail "Depends lacks $d"
done
[ "$with_worker" = ON ] && { echo "$depends" | grep -q "libtorch" || fail "Depends lacks libtorch"; }
contents=$(dpkg-deb -c "$deb")
for f in ./usr/bin/geotrain ./usr/bin/geotrain-delayer ./usr/share/geotrain/scenarios/paper/dtfm_case5.yaml \
         ./usr/share/geotrain/plots/plot_all.py; do
  echo "$contents" | grep -q " $f\$" || fail "package lacks $f"
done
[ "$with_worker" = ON ] && { echo "$contents" | grep -q " ./usr/bin/geotrain-worker\$" || fail "package lacks geotrain-worker"; }

# 3. Unpacked into a temporary root, run from a folder of its own.
root="$tmp/root"
dpkg-deb -x "$deb" "$root"
gt="$root/usr/bin/geotrain"
mkdir "$tmp/work"
cd "$tmp/work"
version_line=$("$gt" --version)
echo "$version_line"
echo "$version_line" | grep -qx "scenarios and plots: $root/usr/share/geotrain" ||
  fail "the unpacked geotrain does not use its own share/geotrain"
scenario="$root/usr/share/geotrain/scenarios/paper/dtfm_case5.yaml"
"$gt" check "$scenario" > check.out || { cat check.out; fail "geotrain check failed"; }
"$gt" simulate "$scenario" > simulate.out 2>&1 || { cat simulate.out; fail "geotrain simulate failed"; }
summary=$(find "$tmp/work/results" -name summary.json | head -n 1)
[ -n "$summary" ] || fail "simulate wrote no summary.json under the working folder"
grep -q '"git_sha": "release-' "$(dirname "$summary")/manifest.json" ||
  fail "the installed geotrain's manifest should name its release"
echo "PASS: package $(basename "$deb"): check and simulate from $root/usr/bin"
