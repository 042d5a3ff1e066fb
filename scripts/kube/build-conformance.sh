#!/usr/bin/env bash
# Builds the upstream Gateway API conformance suite (sigs.k8s.io/gateway-api/conformance, the version pinned in
# conformance/runner/go.mod and go.sum) as a test binary, `go test -c` of conformance/runner, into the user cache.
# The binary is keyed by the sha256 of the runner's go.mod, go.sum and Go files plus the Go version, so an edit or
# a new pin rebuilds it and nothing else does. go.sum is used as checked in (-mod=readonly): the module cache is
# reproduced from the Go module proxy, checked against it.
#
# Usage: build-conformance.sh. Prints `conformance=PATH` (the test binary) and `gateway-api-version=vX.Y.Z` on
# stdout; progress on stderr. Cold: ~1.5 min on 2 cores (client-go, controller-runtime, grpc).
set -euo pipefail

SELF="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/$(basename "${BASH_SOURCE[0]}")"
LOG_NAME="build-conformance"
OVERRIDE_HINT="CONFORMANCE_BIN"
# shellcheck source=scripts/lib/build-log.sh
source "$(dirname "$SELF")/../lib/build-log.sh"

root="$(cd "$(dirname "$SELF")/../.." && pwd)"
runner="$root/conformance/runner"
CACHE_ROOT="${XDG_CACHE_HOME:-$HOME/.cache}/envoy-ingress"

# required_version MODULE: its version in the runner's go.mod (`require M V` or a line of a require block).
required_version() {
  awk -v m="$1" '$1 == "require" && $2 == m { print $3; exit } $1 == m && $2 ~ /^v/ { print $2; exit }' "$runner/go.mod"
}
version="$(required_version sigs.k8s.io/gateway-api/conformance)"
root_version="$(required_version sigs.k8s.io/gateway-api)"
[[ -n "$version" ]] || { log "no sigs.k8s.io/gateway-api/conformance in $runner/go.mod"; exit 1; }
# The suite checks the installed CRDs against the root module's bundle version: both modules at one version.
[[ "$version" == "$root_version" ]] || { log "go.mod requires gateway-api $root_version and its conformance module $version: they must match"; exit 1; }

if [[ -n "${CONFORMANCE_BIN:-}" ]]; then
  [[ -x "$CONFORMANCE_BIN" ]] || { log "CONFORMANCE_BIN '$CONFORMANCE_BIN' is not an executable file"; exit 1; }
  printf 'conformance=%s\ngateway-api-version=%s\n' "$CONFORMANCE_BIN" "$version"
  exit 0
fi
command -v go >/dev/null 2>&1 || { log "the Go toolchain (>= 1.26) is needed to build the conformance suite"; exit 1; }
export CGO_ENABLED=0 GOTOOLCHAIN=local GOFLAGS=-mod=readonly

key="$( { go version; cat "$runner/go.mod" "$runner/go.sum" "$runner"/*.go; } | sha256sum | cut -c1-16)"
dir="$CACHE_ROOT/conformance-$version-$key"
bin="$dir/conformance.test"
if [[ ! -x "$bin" ]]; then
  mkdir -p "$CACHE_ROOT"
  exec 9>"$CACHE_ROOT/.conformance.lock"
  if ! flock -n 9; then
    log "another build is in progress; waiting for it..."
    flock 9
  fi
  if [[ ! -x "$bin" ]]; then
    mkdir -p "$dir"
    logfile="$dir/build.log"
    log "building the Gateway API conformance suite $version into $dir (a minute or two; log: $logfile)..."
    (cd "$runner" && go test -c -trimpath -ldflags='-s -w' -o "$dir/.partial-$$" .) >"$logfile" 2>&1 \
      || { rm -f "$dir/.partial-$$"; fail "go test -c conformance/runner" "$logfile" "$dir"; }
    mv -f "$dir/.partial-$$" "$bin"
  fi
fi
printf 'conformance=%s\ngateway-api-version=%s\n' "$bin" "$version"
