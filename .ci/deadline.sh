# Sourced by .ci/run and .ci/steps/*.sh. Every step that reaches a registry (npx -y pnpm@…, apt-get)
# or waits on a long child runs under a deadline: when it passes, the command (its whole process
# group) is killed and the run says which step and after how long, instead of hanging on a registry
# that never answers.

# deadline SECONDS WHAT COMMAND [ARGS...]: runs COMMAND, killed after SECONDS (then KILL 30 s later).
deadline() {
  local seconds=$1 what=$2
  shift 2
  local status=0
  timeout --kill-after=30 "$seconds" "$@" || status=$?
  if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
    echo "ci: $what did not finish in $seconds s and was killed (a registry that never answers? see its output above)" >&2
  fi
  return "$status"
}
