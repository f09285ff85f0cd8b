#!/usr/bin/env bash
# The sanitized side of CI (part of scripts/test.sh), in build-sanitize/: clang, ASan + UBSan,
# no LibTorch. One tree serves both modes: the libFuzzer coverage flags cost the tests little,
# and a second full build would cost CI several minutes.
#   bash scripts/sanitize.sh              build, then both modes below
#   bash scripts/sanitize.sh build        only build the tree (scripts/test.sh starts this early)
#   bash scripts/sanitize.sh tests        the tests that need neither root nor LibTorch
#   bash scripts/sanitize.sh fuzz         fuzz_scenario for FUZZ_SECONDS (default 60), or for
#                                         FUZZ_RUNS inputs when that is set (at most 15 min)
#   bash scripts/sanitize.sh fuzz FILE... replay inputs (e.g. a crash-* artifact) and stop
# Any sanitizer report or fuzzer finding exits non-zero. fuzz/README.md has the details.
set -euo pipefail
cd "$(dirname "$0")/.."
mode="${1:-all}"
[ $# -gt 0 ] && shift
dir=build-sanitize

configure() {
  local launcher=()
  if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
  # -O1: readable stacks, yet the sanitized simulations do not crawl. -g1: the line tables that
  # symbolized reports need, without full type descriptions (docs/building.md).
  cmake -S . -B "$dir" -G Ninja -DCMAKE_CXX_COMPILER=clang++-14 -DCMAKE_BUILD_TYPE=Debug \
    -DCMAKE_CXX_FLAGS_DEBUG="-g1 -O1" -DGEOTRAIN_WITH_TORCH=OFF -DGEOTRAIN_WERROR=ON \
    -DGEOTRAIN_SANITIZE=address,undefined -DGEOTRAIN_FUZZ=ON "${launcher[@]}" >/dev/null
}

# SimGrid (not instrumented) runs its actors on stacks it switches itself; ASan's fake stacks
# for stack-use-after-return do not survive that, so that one check is off.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_stack_use_after_return=0:abort_on_error=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"

build_tree() { cmake --build "$dir" -j "${JOBS:-$(nproc)}"; }

run_tests() {
  build_tree
  # emu and launch cases need root (namespaces, real emulations); test_emu's root-free cases run
  # directly, the rest of the suite through ctest. Cases named "emu:..." outside label emu
  # (tests/compare) run real emulations, so they need the LibTorch worker this tree lacks.
  ctest --test-dir "$dir" --output-on-failure -j "${JOBS:-2}" -LE 'emu|package' -E '^emu:'
  "$dir"/tests/emu/test_emu "~[root]"
}

run_fuzz() {
  cmake --build "$dir" -j "${JOBS:-$(nproc)}" --target fuzz_scenario
  # Per input: 4 KiB of YAML (the largest bundled scenario is 1.4 KiB), 10 s, 2 GiB. Inputs
  # beyond those are findings too: validation must refuse sizes that cannot be built.
  local limits=(-max_len=4096 -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=2048)
  if [ $# -gt 0 ]; then "$dir"/fuzz_scenario "${limits[@]}" "$@"; return; fi
  # Seeds are copied in at run time (never duplicated in git): every bundled scenario, every
  # pinned bad scenario and every input that once crashed. corpus/ keeps what libFuzzer finds
  # between a developer's runs; artifacts/ receives crash-*, timeout-*, oom-* files.
  local work="$dir/fuzz-run"
  local seeds="$work/seeds" corpus="$work/corpus" artifacts="$work/artifacts" log="$work/last_run.log"
  rm -rf "$seeds"
  mkdir -p "$seeds" "$corpus" "$artifacts"
  find scenarios tests/bad_scenarios tests/fuzz_regressions -name '*.yaml' -print0 |
    while IFS= read -r -d '' f; do cp "$f" "$seeds/$(echo "$f" | tr / _)"; done
  local status=0
  # FUZZ_RUNS fixes the amount of fuzzing instead of its duration: scripts/test.sh fuzzes at idle
  # priority beside the main tests, where 60 s would buy fewer inputs than 60 s on a quiet machine.
  local budget=(-max_total_time="${FUZZ_SECONDS:-60}")
  if [ -n "${FUZZ_RUNS:-}" ]; then budget=(-runs="$FUZZ_RUNS" -max_total_time=900); fi
  "$dir"/fuzz_scenario "${limits[@]}" "${budget[@]}" -print_final_stats=1 \
    -dict=fuzz/scenario.dict -artifact_prefix="$artifacts/" "$corpus" "$seeds" >"$log" 2>&1 ||
    status=$?
  # The log has a line per coverage gain; the totals and any finding are what a reader needs.
  grep -E '^(Done |#[0-9]+.*DONE|stat::number_of_executed_units|stat::peak_rss_mb)' "$log" || true
  if [ "$status" -ne 0 ]; then
    tail -n 60 "$log"
    echo "fuzz: FINDING (exit $status): input saved in $artifacts/, full log $log" >&2
    return "$status"
  fi
  echo "fuzz: no finding; corpus now $(ls "$corpus" | wc -l) inputs in $corpus"
}

configure
case "$mode" in
  build) build_tree ;;
  tests) run_tests ;;
  fuzz) run_fuzz "$@" ;;
  all) run_tests; run_fuzz ;;  # not `&&`: that would switch set -e off inside run_tests
  *) echo "usage: $0 [build|tests|fuzz [FILE...]]" >&2; exit 2 ;;
esac
