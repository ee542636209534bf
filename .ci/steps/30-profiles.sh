#!/usr/bin/env bash
# Tolerance is tested, not claimed: the integration suites of the client packages and the CLI's demo
# run against the simulator's variant profiles 1..8 (PROMO_SIM_PROFILE, see packages/simulator
# "Variant profiles"), each another plausible reading of every "not shown" point of the spec. The
# normal test run covers profile 0. Every seed runs the facade's end-to-end suite, the webhook
# deliveries and the demo; each package's own integration suites run on a pair of complementary seeds
# ({1,8}, {2,7}, {3,6}, {4,5}), which between them take every reading of every row. Coverage
# thresholds are off here (the normal run enforces them).
set -euo pipefail
cd "$(dirname "$0")/../.."
out="${CI_RESULTS:-$PWD/.ci-results}/counted/profiles"
logs="$(mktemp -d)"
trap 'rm -rf "$logs"' EXIT
rm -rf "$out"
mkdir -p "$out"
# The suites import the packages' dist, and the demo is the built CLI; the README's test line builds
# them first, this covers a step run on its own.
# shellcheck source=.ci/deadline.sh
. .ci/deadline.sh
[ -f packages/cli/dist/bin.js ] || deadline 1200 "pnpm build" npx -y pnpm@10.34.9 build

# package:files for every seed: the facade's end-to-end suite and the webhook deliveries.
core=(
  "sdk:src/client.test.ts"
  "webhook-verify:src/simulator.test.ts"
)
# package:files for a pair of complementary seeds, which between them take every reading of every row.
heavy_for() {
  case "$1" in
    1 | 8) echo "upload-chunker:src/upload.test.ts src/retries.test.ts src/resume.test.ts" ;;
    2 | 7) echo "promotions-core:src/promotions.test.ts src/evaluation-and-replies.test.ts src/reference-cache.test.ts" ;;
    3 | 6) echo "link-capture:src/capture.test.ts" "upload-chunker:src/wait.test.ts src/abort.test.ts src/node-transport.test.ts" "sdk:src/node.test.ts" ;;
    4 | 5) echo "promotions-core:src/accepts.test.ts src/rate-budget.test.ts" "link-capture:src/rate-budget.test.ts" ;;
  esac
}

run_suite() { # seed package files...
  local seed=$1 pkg=$2
  shift 2
  local name="$seed-$pkg-$(echo "$*" | tr -c 'a-z0-9' '_' | cut -c1-40)"
  if (cd "packages/$pkg" && PROMO_SIM_PROFILE=$seed VITEST_JSON_REPORT="$out/$name.json" \
    npx vitest run --coverage.enabled=false "$@") >"$logs/$name.log" 2>&1; then
    echo "profiles: seed $seed $pkg $* passed"
  else
    echo "profiles: seed $seed $pkg $* FAILED"
    cat "$logs/$name.log"
    return 1
  fi
}
export -f run_suite
export out logs

start=$(date +%s)
jobs_file="$logs/jobs"
: >"$jobs_file"
for seed in 1 2 3 4 5 6 7 8; do
  for spec in "${core[@]}"; do echo "$seed ${spec%%:*} ${spec#*:}" >>"$jobs_file"; done
  while read -r spec; do
    [ -n "$spec" ] && echo "$seed ${spec%%:*} ${spec#*:}" >>"$jobs_file"
  done < <(heavy_for "$seed" | tr ' ' '\n' | awk '/:/{if (line) print line; line=$0; next} {line=line" "$0} END{if (line) print line}')
done
status=0
# Three at a time on two cores: most of a suite's time is waiting on timers and sockets, not CPU.
xargs -P 3 -L 1 bash -c 'run_suite "$@"' _ <"$jobs_file" || status=1

run_demo() { # seed
  if node packages/cli/dist/bin.js demo --profile "$1" >"$logs/demo-$1.log" 2>&1; then
    echo "profiles: seed $1 demo passed"
  else
    echo "profiles: seed $1 demo FAILED"
    cat "$logs/demo-$1.log"
    return 1
  fi
}
export -f run_demo
printf '%s\n' 1 2 3 4 5 6 7 8 | xargs -P 3 -L 1 bash -c 'run_demo "$1"' _ || status=1
echo "profiles: finished in $(($(date +%s) - start)) s with status $status"
exit "$status"
