#!/usr/bin/env bash
# README command 2 (and CI): install what is missing, build, run every test. Emulation tests
# (label emu) need root; in CI they run, never skip.
# It builds in the same tree with the same configuration as scripts/demo.sh, so after the demo
# only what the demo left out is built (the LibTorch worker, the tests). Warnings are errors when
# CI=true (or WERROR=1): CI builds from a clean clone, so it pays for no second configuration.
# Then the sanitized side (scripts/sanitize.sh, its own tree build-sanitize/): the root-free,
# torch-free tests under ASan and UBSan, and 60 s of libFuzzer over scenario loading and Program
# building; a sanitizer report or a fuzz finding fails this script. SANITIZE=0 skips it.
#
# The sanitized tree is built, and then fuzzed (40,000 inputs, about 60 s alone), WHILE the main tests run, as a SCHED_IDLE
# process: the emulation tests run one at a time and mostly wait on their shaped links (about 15 %
# of the two cores busy, docs/building.md), and an idle-class process only gets the CPU they
# leave; the kernel preempts it whenever a test wants a core. That hides most of the sanitized
# build's time. SANITIZE_OVERLAP=0 builds and fuzzes after the main tests instead.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh

sanitize="${SANITIZE:-1}"
overlap="${SANITIZE_OVERLAP:-1}"
build_pid=""
build_log=build-sanitize/build.log
# The background build runs in a session of its own, so stopping it stops its compilers too.
stop_build() {
  if [ -n "$build_pid" ]; then
    kill -- "-$build_pid" 2>/dev/null || true
    wait "$build_pid" 2>/dev/null || true
  fi
}
trap stop_build EXIT
if [ "$sanitize" != "0" ] && [ "$overlap" != "0" ]; then
  echo "test.sh: building and fuzzing build-sanitize/ in the background (SCHED_IDLE), log in $build_log"
  mkdir -p build-sanitize
  # The fuzzing is counted in inputs, not seconds (FUZZ_RUNS): 40,000 is what 60 s gave alone on
  # the 2-core machine (38,451), so fuzzing at idle priority does not mean fuzzing less.
  setsid chrt --idle 0 nice -n 19 env FUZZ_RUNS="${FUZZ_RUNS:-40000}" \
    bash -c 'bash scripts/sanitize.sh build && bash scripts/sanitize.sh fuzz' \
    > "$build_log" 2>&1 &
  build_pid=$!
fi

(cd build && ctest --output-on-failure -j "${JOBS:-2}" "$@")

if [ "$sanitize" != "0" ]; then
  if [ -n "$build_pid" ]; then
    if ! wait "$build_pid"; then
      build_pid=""
      tail -n 80 "$build_log"
      echo "test.sh: the sanitized build or the fuzzing failed (full log: $build_log)" >&2
      exit 1
    fi
    build_pid=""
    echo "test.sh: sanitized tree built and fuzzed beside the tests ($build_log):"
    grep -E '^(Done |stat::number_of_executed_units|stat::peak_rss_mb|fuzz: )' "$build_log" || true
    bash scripts/sanitize.sh tests
  else
    bash scripts/sanitize.sh
  fi
fi
