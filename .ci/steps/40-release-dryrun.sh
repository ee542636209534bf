#!/usr/bin/env bash
# A release can never be broken by packaging: every publishable package goes through pnpm's own
# publish path (workspace: ranges rewritten, files packed, manifest checked) as a dry run, and each
# must come out as name@version. Nothing is uploaded; no credentials are needed or read.
set -euo pipefail
cd "$(dirname "$0")/../.."

# shellcheck source=.ci/deadline.sh
. .ci/deadline.sh
pnpm=(npx -y pnpm@10.34.9)
deadline 1200 "pnpm build" "${pnpm[@]}" build --output-logs=errors-only >/dev/null
output=$(deadline 900 "pnpm publish --dry-run" "${pnpm[@]}" publish -r --dry-run --no-git-checks 2>&1) || {
  echo "$output"
  echo "release-dryrun: pnpm publish --dry-run failed"
  exit 1
}

missing=0
for manifest in packages/*/package.json; do
  read -r name version private < <(node -e '
    const m = require(process.argv[1]);
    console.log(m.name, m.version, m.private === true);
  ' "$PWD/$manifest")
  [ "$private" = "true" ] && continue
  # "+ name@version" is a package that would be published; a version already on the registry is
  # named by pnpm as skipped, which is not a packaging failure.
  if ! grep -qF -- "+ $name@$version" <<<"$output" && ! grep -qF -- "$name@$version" <<<"$output"; then
    echo "release-dryrun: $name@$version did not go through the dry-run publish"
    missing=$((missing + 1))
  fi
done
if [ "$missing" -gt 0 ]; then
  echo "$output"
  exit 1
fi
echo "release-dryrun: $(grep -c '^+ @promo-review/' <<<"$output") packages would be published"
