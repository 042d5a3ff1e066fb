#!/usr/bin/env bash
# Builds the Gateway API conformance suite's echo server (`conformance/echo-basic` of
# sigs.k8s.io/gateway-api/conformance, pinned below) as an OCI image archive per image name the suite's
# base/manifests.yaml uses (e.g. registry.k8s.io/gateway-api/echo-basic:v1.5.1): those pods then run on the test
# node without a registry. The binary is built once into the user cache from a throw-away module that requires
# both sigs.k8s.io/gateway-api and sigs.k8s.io/gateway-api/conformance at the same version (the conformance
# module's `replace sigs.k8s.io/gateway-api => ../` is ignored when it is a dependency).
#
# Usage: build-echo-basic.sh OUTDIR. Prints one `image-name=archive-path` line per image; progress on stderr.
set -euo pipefail

GATEWAY_API_VERSION="v1.6.3"   # newest that builds with Go 1.26 (v1.7 needs Go 1.27)

log() { printf 'build-echo-basic: %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
out="${1:-}"
[[ -n "$out" ]] || die "usage: build-echo-basic.sh OUTDIR"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
CACHE_ROOT="${XDG_CACHE_HOME:-$HOME/.cache}/envoy-ingress"
dir="$CACHE_ROOT/echo-basic-$GATEWAY_API_VERSION"

export CGO_ENABLED=0 GOFLAGS=-mod=mod GOTOOLCHAIN=local
if [[ ! -x "$dir/echo-basic" ]]; then
  command -v go >/dev/null 2>&1 || die "the Go toolchain (>= 1.26) is needed to build echo-basic"
  mkdir -p "$dir/module"
  log "building echo-basic $GATEWAY_API_VERSION into $dir (a minute or two; log: $dir/build.log)..."
  printf 'module envoy-ingress.local/build-echo-basic\n\ngo 1.26.0\n\nrequire (\n\tsigs.k8s.io/gateway-api %s\n\tsigs.k8s.io/gateway-api/conformance %s\n)\n' \
    "$GATEWAY_API_VERSION" "$GATEWAY_API_VERSION" >"$dir/module/go.mod"
  rm -f "$dir/module/go.sum"
  (cd "$dir/module" && go build -trimpath -ldflags="-s -w" -o "$dir/.partial-$$" sigs.k8s.io/gateway-api/conformance/echo-basic) \
    >"$dir/build.log" 2>&1 || { tail -n 25 "$dir/build.log" >&2; rm -f "$dir/.partial-$$"; die "go build echo-basic failed (log: $dir/build.log)"; }
  mv -f "$dir/.partial-$$" "$dir/echo-basic"
fi

# The image names the suite's manifests use (the base manifests' and the tests' own, e.g. the TCP tests'
# echo-basic:v1.6.0-dev.2), from the same module: every name is this one build of the pinned source.
module_dir="$(cd "$dir/module" && go list -m -f '{{.Dir}}' sigs.k8s.io/gateway-api/conformance)"
mapfile -t names < <(sed -nE 's/^[[:space:]]*image:[[:space:]]*(registry\.k8s\.io\/gateway-api\/echo-basic:[^[:space:]]+).*/\1/p' \
  "$module_dir/base/manifests.yaml" "$module_dir"/tests/*.yaml | sort -u)
((${#names[@]})) || die "no echo-basic image in $module_dir/base/manifests.yaml"

work="$(mktemp -d "$out/.work-XXXXXX")"
trap 'rm -rf "$work"' EXIT
# shellcheck source=scripts/lib/oci-image.sh
source "$root/scripts/lib/oci-image.sh"
mkdir -p "$work/rootfs"
cp "$dir/echo-basic" "$work/rootfs/echo-basic"
for name in "${names[@]}"; do
  # Static program, no users file: like upstream's image it runs as whatever the pod says.
  write_image "$name" "$work/rootfs" '{"Entrypoint":["/echo-basic"]}' "$out/echo-basic-${name##*:}.tar"
done
