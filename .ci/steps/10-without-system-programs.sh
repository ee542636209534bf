#!/usr/bin/env bash
# The README's promise for a machine with Node and nothing else: the packages whose suites need
# redis-server or chromium run their test task again with both really absent (hidden in a private
# mount namespace, /usr/bin included) and CI unset. Those suites must skip loudly, and the task must
# pass, coverage floor included (see CONTRIBUTING, "Coverage when a suite skips").
set -euo pipefail
cd "$(dirname "$0")/../.."
out="${CI_RESULTS:-$PWD/.ci-results}/uncounted/without-system-programs"
rm -rf "$out"
mkdir -p "$out"

# Every package with a suite that asks for one of the programs.
asks='redisAvailable\(|programAvailable\('
mapfile -t packages < <(grep -lE "$asks" -r packages/*/src packages/*/test 2>/dev/null | cut -d/ -f2 | sort -u)
echo "without-system-programs: ${packages[*]}"
status=0
for name in "${packages[@]}"; do
  # A package with the coverage floor runs whole, so the floor is judged as on a fresh machine; one
  # without (runtime-proof) runs only the files that ask, the rest having run in the README line.
  files=()
  if ! grep -q packageTestConfig "packages/$name/vitest.config.ts"; then
    mapfile -t files < <(cd "packages/$name" && grep -lE "$asks" -r src test 2>/dev/null | grep -E '\.test\.ts$')
  fi
  echo "--- packages/$name ${files[*]:-(all files)}: without redis-server and chromium, CI unset"
  (
    cd "packages/$name"
    env -u CI VITEST_JSON_REPORT="$out/$name.json" ../../scripts/without-programs.sh redis-server chromium -- \
      npx vitest run --coverage "${files[@]}"
  ) || status=1
done
node scripts/test-summary.mjs --label "without redis-server and chromium (skips expected)" "$out" || status=1
exit "$status"
