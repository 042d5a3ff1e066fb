# Writing OCI image archives (what `ctr images import` loads) reproducibly, without a container engine: shared by
# scripts/kube/build-images.sh and scripts/kube/build-echo-basic.sh. Source it after setting `work` (a scratch
# directory). Every file gets mtime 0, uid/gid 0 and a normalised mode; entries are sorted by name; layers are
# uncompressed tars; the JSON is written byte for byte here: the same inputs give the same digests.

# Tar options that make an archive depend on the files' names, contents and (normalised) modes only.
TAR_REPRO=(--sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner --format=posix
  --pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime --mode=u+rwX,go+rX,go-w)

# place SRC DEST: copies SRC (file or directory) to DEST in a staging tree, hard-linking where possible.
place() {
  mkdir -p "$(dirname "$2")"
  cp -al "$1" "$2" 2>/dev/null || cp -a "$1" "$2"
}

# add_libraries STAGE BINARY: the shared libraries and the loader BINARY needs, at their own paths.
add_libraries() {
  local lib
  for lib in $(ldd "$2" | grep -oE '/[^ ]+' | sort -u); do
    mkdir -p "$1$(dirname "$lib")"
    cp -L "$lib" "$1$lib"
  done
}

# add_users STAGE: what distroless's nonroot variant has: root, nonroot (65532), nobody; a world-writable /tmp.
add_users() {
  mkdir -p "$1/etc" "$1/tmp" "$1/home/nonroot"
  printf 'root:x:0:0:root:/root:/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n' >"$1/etc/passwd"
  printf 'root:x:0:\nnobody:x:65534:\nnonroot:x:65532:\n' >"$1/etc/group"
}

sha() { sha256sum "$1" | cut -d' ' -f1; }
size() { stat -c %s "$1"; }

# write_image NAME STAGE CONFIG_JSON_BODY FILE: a one-layer OCI image archive of STAGE named NAME, whose
# config's "config" object is CONFIG_JSON_BODY; written to FILE.
write_image() {
  local name="$1" stage="$2" body="$3" file="$4"
  local layout="$work/layout-$(basename "$file")"
  mkdir -p "$layout/blobs/sha256"
  local layer="$layout/layer.tar"
  tar "${TAR_REPRO[@]}" --xattrs --xattrs-include=security.capability -C "$stage" -cf "$layer" .
  local layer_digest layer_size
  layer_digest="$(sha "$layer")"; layer_size="$(size "$layer")"
  mv "$layer" "$layout/blobs/sha256/$layer_digest"
  local config="$layout/config.json"
  printf '{"architecture":"amd64","os":"linux","created":"1970-01-01T00:00:00Z","config":%s,"rootfs":{"type":"layers","diff_ids":["sha256:%s"]}}' \
    "$body" "$layer_digest" >"$config"
  local config_digest config_size
  config_digest="$(sha "$config")"; config_size="$(size "$config")"
  mv "$config" "$layout/blobs/sha256/$config_digest"
  local manifest="$layout/manifest.json"
  printf '{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"sha256:%s","size":%s},"layers":[{"mediaType":"application/vnd.oci.image.layer.v1.tar","digest":"sha256:%s","size":%s}]}' \
    "$config_digest" "$config_size" "$layer_digest" "$layer_size" >"$manifest"
  local manifest_digest manifest_size
  manifest_digest="$(sha "$manifest")"; manifest_size="$(size "$manifest")"
  mv "$manifest" "$layout/blobs/sha256/$manifest_digest"
  printf '{"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[{"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":"sha256:%s","size":%s,"platform":{"architecture":"amd64","os":"linux"},"annotations":{"io.containerd.image.name":"%s","org.opencontainers.image.ref.name":"%s"}}]}' \
    "$manifest_digest" "$manifest_size" "$name" "${name##*:}" >"$layout/index.json"
  printf '{"imageLayoutVersion":"1.0.0"}' >"$layout/oci-layout"
  tar "${TAR_REPRO[@]}" -C "$layout" -cf "$file.partial" oci-layout index.json blobs
  mv -f "$file.partial" "$file"
  rm -rf "$layout"
  printf '%s=%s\n' "$name" "$file"
}

