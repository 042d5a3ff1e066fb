# Logging and failure reporting shared by the scripts that build pinned binaries into the user cache
# (scripts/kube/ensure-binaries.sh, scripts/ensure-go-tools.sh). Source it after setting:
#   LOG_NAME       the prefix of every line (the script's name)
#   SELF           the script's absolute path (named in the retry hint)
#   OVERRIDE_HINT  which environment variables point at existing binaries instead
# Everything goes to stderr: stdout carries only the scripts' `name=path` lines.

log() { printf '%s: %s\n' "$LOG_NAME" "$*" >&2; }

# fail STEP LOGFILE DIR: explains which step failed, where its log is and how to retry; exits 1.
fail() {
  local step="$1" logfile="$2" dir="$3"
  log "FAILED at step: $step"
  log "log: $logfile"
  if [[ -f "$logfile" ]]; then
    log "last lines of the log:"
    tail -n 25 "$logfile" | sed 's/^/    /' >&2
  fi
  log "retry: run $SELF again (it resumes; to start from scratch: rm -rf '$dir')"
  log "or point $OVERRIDE_HINT at existing binaries"
  exit 1
}
