#!/usr/bin/env bash
# Benchmarks that cannot rot: `pnpm bench` end to end in smoke mode (BENCH_SMOKE=1: every package's
# benchmark small and once, no bars judged; see scripts/bench-output.mjs), so that a benchmark that no
# longer runs (a renamed option, a moved export) turns CI red. Its figures mean nothing: they go to a
# temporary folder, never over the committed bench/results/*.md or bench/RESULTS.md, which this step
# also checks. A deadline stops a benchmark that hangs.
set -euo pipefail
cd "$(dirname "$0")/../.."
smoke_dir="$(mktemp -d)"
log="$smoke_dir/bench.log"
trap 'rm -rf "$smoke_dir"' EXIT
deadline_s=300
before="$(git status --porcelain -- bench)"
start=$(date +%s)
status=0
# --kill-after: a benchmark that ignores SIGTERM is killed 10 s later.
BENCH_SMOKE=1 BENCH_SMOKE_DIR="$smoke_dir/results" \
  timeout --kill-after=10 "$deadline_s" npx -y pnpm@10.34.9 bench >"$log" 2>&1 || status=$?
if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
  echo "bench-smoke: pnpm bench did not finish within ${deadline_s} s"
elif [ "$status" -ne 0 ]; then
  echo "bench-smoke: pnpm bench failed with status $status"
fi
if [ "$status" -ne 0 ]; then
  tail -n 80 "$log"
elif [ ! -s "$smoke_dir/results/RESULTS.md" ]; then
  echo "bench-smoke: no report was written to the smoke folder"
  status=1
fi
if [ "$(git status --porcelain -- bench)" != "$before" ]; then
  echo "bench-smoke: a smoke run changed bench/ (results must go to the smoke folder):"
  git status --porcelain -- bench
  status=1
fi
echo "bench-smoke: finished in $(($(date +%s) - start)) s with status $status"
exit "$status"
