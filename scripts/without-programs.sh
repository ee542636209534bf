#!/usr/bin/env bash
# Runs a command on a machine where the named programs are really absent, as on a fresh machine with
# Node and nothing else: in a private mount namespace (unshare -m, as root), every directory that holds
# one of them (PATH, /usr/bin, /usr/local/bin) is overlaid with a whiteout for it. Hiding them from
# PATH alone is not enough: the test helpers also look in /usr/bin and /usr/local/bin.
#
#   scripts/without-programs.sh redis-server chromium -- <command> [args...]
#
# The mounts live and die with the namespace: the machine's own /usr/bin is never changed. The script
# checks that each program is gone before it runs the command, and fails if it cannot hide them.
set -euo pipefail

programs=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do programs+=("$1"); shift; done
[ "${1:-}" = "--" ] || { echo "usage: $0 PROGRAM... -- COMMAND..." >&2; exit 2; }
shift
[ $# -gt 0 ] || { echo "usage: $0 PROGRAM... -- COMMAND..." >&2; exit 2; }

if [ -z "${WITHOUT_PROGRAMS_INSIDE:-}" ]; then
  [ "$(id -u)" = 0 ] || { echo "without-programs: needs root for unshare -m" >&2; exit 2; }
  exec env WITHOUT_PROGRAMS_INSIDE=1 unshare -m --propagation private bash "$0" "${programs[@]}" -- "$@"
fi

# Inside the namespace: find every directory holding one of the programs.
declare -A whiteouts=()
IFS=: read -r -a path_dirs <<<"${PATH:-}"
for dir in "${path_dirs[@]}" /usr/bin /usr/local/bin; do
  [ -d "$dir" ] || continue
  real=$(realpath "$dir")
  for program in "${programs[@]}"; do
    if { [ -e "$real/$program" ] || [ -L "$real/$program" ]; } && [[ " ${whiteouts[$real]:-} " != *" $program "* ]]; then
      whiteouts[$real]="${whiteouts[$real]:-} $program"
    fi
  done
done

scratch=$(mktemp -d)
mount -t tmpfs tmpfs "$scratch"
n=0
for dir in "${!whiteouts[@]}"; do
  n=$((n + 1))
  mkdir -p "$scratch/$n/upper" "$scratch/$n/work"
  for program in ${whiteouts[$dir]}; do mknod "$scratch/$n/upper/$program" c 0 0; done
  mount -t overlay overlay -o "lowerdir=$dir,upperdir=$scratch/$n/upper,workdir=$scratch/$n/work" "$dir"
done

for program in "${programs[@]}"; do
  if command -v "$program" >/dev/null 2>&1 || [ -e "/usr/bin/$program" ] || [ -e "/usr/local/bin/$program" ]; then
    echo "without-programs: could not hide $program" >&2
    exit 1
  fi
done
echo "without-programs: ${programs[*]} absent for: $*"
exec "$@"
