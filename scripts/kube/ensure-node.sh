#!/usr/bin/env bash
# Prints the paths of what a real Kubernetes node needs besides kube-apiserver, kubectl and etcd
# (scripts/kube/ensure-binaries.sh), one `name=path` per line:
#
#   kubelet=/root/.cache/envoy-ingress/kube-v1.36.3/kubelet           (also kube-controller-manager,
#   kube-scheduler=...                                                  kube-scheduler, kube-proxy)
#   containerd=/root/.cache/envoy-ingress/containerd-v2.4.2/containerd (also containerd-shim-runc-v2, ctr)
#   pause=/root/.cache/envoy-ingress/pause-<hash>/pause               (the sandbox image's program)
#   runc=/usr/sbin/runc   cni-bin-dir=/usr/lib/cni   nft=...   iptables=...   conntrack=...
#
# `ensure-node.sh pause` builds and prints only the pause program.
#
# The Kubernetes binaries come from the same pinned k8s.io/kubernetes and the same throw-away module technique as
# ensure-binaries.sh (whose helpers this script sources); containerd 2.x from its Go module; the pause program from
# scripts/kube/pause/main.go. All are built once into the user cache (CI clones afresh, the cache survives).
# runc, the CNI plugins, nft, iptables, conntrack and setcap (for the edge image) are Debian packages, installed
# with apt-get when missing (the tests run as root; elsewhere install them yourself: runc
# containernetworking-plugins nftables iptables conntrack libcap2-bin).
#
# Progress and errors go to stderr; stdout carries only the `name=path` lines.
set -euo pipefail

CONTAINERD_VERSION="v2.4.2"   # containerd 2.x: kubelet 1.36 reports 1.x as losing CRI support in 1.37

SELF="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/$(basename "${BASH_SOURCE[0]}")"
HERE="$(dirname "$SELF")"
# shellcheck source=scripts/kube/ensure-binaries.sh
source "$HERE/ensure-binaries.sh"
LOG_NAME="ensure-node"
OVERRIDE_HINT="(no override: fix the build, or remove the cache directory named above)"
CONTAINERD_DIR="$CACHE_ROOT/containerd-$CONTAINERD_VERSION"
NODE_BINARIES=(kubelet kube-controller-manager kube-scheduler kube-proxy)

# Debian packages, by a file each one installs.
APT_PACKAGES=(runc:/usr/sbin/runc containernetworking-plugins:/usr/lib/cni/bridge nftables:/usr/sbin/nft
  iptables:/usr/sbin/iptables conntrack:/usr/sbin/conntrack libcap2-bin:/usr/sbin/setcap)

ensure_apt_packages() {
  local missing=() entry
  for entry in "${APT_PACKAGES[@]}"; do
    [[ -x "${entry#*:}" ]] || missing+=("${entry%%:*}")
  done
  ((${#missing[@]} == 0)) && return 0
  if [[ "$(id -u)" != 0 ]]; then
    log "missing Debian packages: ${missing[*]} (run as root, or install them: apt-get install ${missing[*]})"
    exit 1
  fi
  log "installing Debian packages: ${missing[*]}..."
  local logfile="$CACHE_ROOT/apt-node.log"
  mkdir -p "$CACHE_ROOT"
  if ! DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}" >"$logfile" 2>&1; then
    # A fresh machine has no package lists yet.
    DEBIAN_FRONTEND=noninteractive apt-get update >>"$logfile" 2>&1 || fail "apt-get update" "$logfile" "$CACHE_ROOT"
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}" >>"$logfile" 2>&1 \
      || fail "apt-get install ${missing[*]}" "$logfile" "$CACHE_ROOT"
  fi
}

build_kube_node() {
  local logfile="$KUBE_DIR/node-build.log" mod="$KUBE_DIR/node-module"
  require_go "kubelet $KUBE_VERSION"
  go_env
  mkdir -p "$mod"
  : >"$logfile"
  log "building ${NODE_BINARIES[*]} $KUBE_VERSION into $KUBE_DIR (minutes on 2 cores; log: $logfile)..."
  local upstream
  upstream="$(go_mod_file "k8s.io/kubernetes@$KUBE_VERSION" "$logfile")" && [[ -n "$upstream" ]] \
    || fail "go mod download k8s.io/kubernetes@$KUBE_VERSION" "$logfile" "$KUBE_DIR"
  write_module "$mod" k8s.io/kubernetes "$KUBE_VERSION" "v0.${KUBE_VERSION#v1.}" "$upstream" '^\./staging/' \
    || fail "writing $mod/go.mod" "$logfile" "$KUBE_DIR"
  rm -f "$mod/go.sum"
  local ldflags="-s -w" version_pkg name
  for version_pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ldflags+=" -X $version_pkg.gitVersion=$KUBE_VERSION"
    ldflags+=" -X $version_pkg.gitMajor=1 -X $version_pkg.gitMinor=$(echo "$KUBE_VERSION" | cut -d. -f2)"
    ldflags+=" -X $version_pkg.gitTreeState=clean"
  done
  local out="$KUBE_DIR/.node-partial-$$" packages=()
  for name in "${NODE_BINARIES[@]}"; do packages+=("k8s.io/kubernetes/cmd/$name"); done
  rm -rf "$out" && mkdir -p "$out"
  (cd "$mod" && go build -trimpath -ldflags="$ldflags" -o "$out/" "${packages[@]}") >>"$logfile" 2>&1 \
    || { rm -rf "$out"; fail "go build ${packages[*]}" "$logfile" "$KUBE_DIR"; }
  for name in "${NODE_BINARIES[@]}"; do
    "$out/$name" --version >>"$logfile" 2>&1 || { rm -rf "$out"; fail "smoke test: $name --version" "$logfile" "$KUBE_DIR"; }
  done
  # kubelet last: its presence marks the set as complete.
  for name in kube-controller-manager kube-scheduler kube-proxy kubelet; do mv -f "$out/$name" "$KUBE_DIR/$name"; done
  rm -rf "$out"
  log "  done: $KUBE_DIR"
}

build_containerd() {
  local dir="$CONTAINERD_DIR" logfile="$CONTAINERD_DIR/build.log" mod="$CONTAINERD_DIR/module"
  require_go "containerd $CONTAINERD_VERSION"
  go_env
  mkdir -p "$mod"
  : >"$logfile"
  log "building containerd $CONTAINERD_VERSION into $dir (a minute or two; log: $logfile)..."
  {
    printf '// Generated by scripts/kube/ensure-node.sh: builds containerd %s.\n' "$CONTAINERD_VERSION"
    printf 'module envoy-ingress.local/build-containerd\n\ngo 1.26.0\n\nrequire github.com/containerd/containerd/v2 %s\n' "$CONTAINERD_VERSION"
  } >"$mod/go.mod"
  rm -f "$mod/go.sum"
  local out="$dir/.partial-$$" pkg="github.com/containerd/containerd/v2/cmd" v="github.com/containerd/containerd/v2/version"
  rm -rf "$out" && mkdir -p "$out"
  # No cgo: the btrfs, devmapper and zfs snapshotters need it and the node uses overlayfs.
  (cd "$mod" && go build -trimpath -tags "no_btrfs no_devmapper no_zfs" \
      -ldflags="-s -w -X $v.Version=$CONTAINERD_VERSION -X $v.Package=github.com/containerd/containerd/v2" \
      -o "$out/" "$pkg/containerd" "$pkg/containerd-shim-runc-v2" "$pkg/ctr") >>"$logfile" 2>&1 \
    || { rm -rf "$out"; fail "go build containerd $CONTAINERD_VERSION" "$logfile" "$dir"; }
  "$out/containerd" --version >>"$logfile" 2>&1 || { rm -rf "$out"; fail "smoke test: containerd --version" "$logfile" "$dir"; }
  mv -f "$out/ctr" "$dir/ctr"
  mv -f "$out/containerd-shim-runc-v2" "$dir/containerd-shim-runc-v2"
  mv -f "$out/containerd" "$dir/containerd"
  rm -rf "$out"
  log "  done: $dir"
}

# The pause program, cached by the hash of its source.
build_pause() {
  local src="$HERE/pause/main.go" hash dir
  hash="$(sha256sum "$src" | cut -c1-12)"
  dir="$CACHE_ROOT/pause-$hash"
  if [[ ! -x "$dir/pause" ]]; then
    require_go "the pause program"
    go_env
    mkdir -p "$dir/module"
    cp "$src" "$dir/module/main.go"
    printf 'module envoy-ingress.local/pause\n\ngo 1.26.0\n' >"$dir/module/go.mod"
    (cd "$dir/module" && go build -trimpath -ldflags="-s -w" -o "$dir/.partial-$$" .) >"$dir/build.log" 2>&1 \
      || fail "go build pause" "$dir/build.log" "$dir"
    mv -f "$dir/.partial-$$" "$dir/pause"
  fi
  printf '%s\n' "$dir/pause"
}

main_node() {
  mkdir -p "$CACHE_ROOT"
  # `ensure-node.sh pause`: only the pause program (for building images without the rest of the node).
  if [[ "${1:-}" == pause ]]; then printf 'pause=%s\n' "$(build_pause)"; return 0; fi
  ensure_apt_packages
  # One build at a time per machine (parallel test processes, other checkouts): the others wait, then reuse.
  exec 8>"$CACHE_ROOT/.kube-node.lock"
  if ! flock -n 8; then
    log "another node build is in progress; waiting for it..."
    flock 8
  fi
  mkdir -p "$KUBE_DIR" "$CONTAINERD_DIR"
  [[ -x "$CONTAINERD_DIR/containerd" ]] || build_containerd
  [[ -x "$KUBE_DIR/kubelet" ]] || build_kube_node
  local pause name
  pause="$(build_pause)"
  for name in "${NODE_BINARIES[@]}"; do printf '%s=%s\n' "$name" "$KUBE_DIR/$name"; done
  for name in containerd containerd-shim-runc-v2 ctr; do printf '%s=%s\n' "$name" "$CONTAINERD_DIR/$name"; done
  printf 'pause=%s\n' "$pause"
  printf 'runc=%s\ncni-bin-dir=%s\nnft=%s\niptables=%s\nconntrack=%s\n' \
    /usr/sbin/runc /usr/lib/cni /usr/sbin/nft /usr/sbin/iptables /usr/sbin/conntrack
}

if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then main_node "$@"; fi
