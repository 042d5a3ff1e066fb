#!/usr/bin/env bash
# Prints where the pinned Gateway API release's files are in the Go module cache, one `name=path` line each:
#
#   crds=/root/go/pkg/mod/sigs.k8s.io/gateway-api@v1.6.3/config/crd/standard
#   base-manifests=/root/go/pkg/mod/sigs.k8s.io/gateway-api/conformance@v1.6.3/base/manifests.yaml
#
# `crds` is the standard channel's CRD directory (what a user installs; its files carry the bundle-version
# annotation the conformance suite checks), `base-manifests` the conformance suite's own base manifests (the
# namespaces, echo Deployments/Services and Gateways it applies before any test). Same version as
# build-echo-basic.sh. Downloads the two modules through the Go module proxy on first use (seconds).
set -euo pipefail

GATEWAY_API_VERSION="v1.6.3"   # keep equal to build-echo-basic.sh

die() { printf 'gateway-api-paths: %s\n' "$*" >&2; exit 1; }
command -v go >/dev/null 2>&1 || die "the Go toolchain is needed to fetch sigs.k8s.io/gateway-api $GATEWAY_API_VERSION"
export GOTOOLCHAIN=local GOFLAGS=-mod=mod

# `go mod download -json MODULE@VERSION` works outside any module and prints {"Dir": ...} once extracted.
module_dir() {
  go mod download -json "$1@$GATEWAY_API_VERSION" | sed -nE 's/^[[:space:]]*"Dir":[[:space:]]*"(.*)",?$/\1/p'
}
root_dir="$(module_dir sigs.k8s.io/gateway-api)"
conformance_dir="$(module_dir sigs.k8s.io/gateway-api/conformance)"
[[ -d "$root_dir/config/crd/standard" ]] || die "no config/crd/standard in sigs.k8s.io/gateway-api@$GATEWAY_API_VERSION ($root_dir)"
[[ -f "$conformance_dir/base/manifests.yaml" ]] || die "no base/manifests.yaml in sigs.k8s.io/gateway-api/conformance@$GATEWAY_API_VERSION ($conformance_dir)"
printf 'crds=%s\nbase-manifests=%s\n' "$root_dir/config/crd/standard" "$conformance_dir/base/manifests.yaml"
