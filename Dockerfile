# The controller image: `docker build -t envoy-ingress/controller:0.1.0 .`
# The build stage runs on the builder's own platform (multi-arch builds do not emulate it): its output is
# JavaScript, and no dependency has native code, so the same node_modules serve amd64 and arm64.
# Node 24 LTS, pinned by digest (the multi-arch index). scripts/ensure-node.sh reads the version from this line:
# `npm test` runs the test suite on exactly this Node (docs/contributing/tests.md). Bump version and digest together,
# here and in deploy/images/*.Dockerfile (the Envoy images build on the same bases: test/supply-chain-pins.test.ts).
FROM --platform=$BUILDPLATFORM node:24.21.0-bookworm-slim@sha256:2fe369e969550cde8e867afc3fe370b260140cab4a23d467074295b42163d553 AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY tsconfig.json ./
COPY cli cli
COPY controller controller
COPY ir ir
COPY envoy envoy
COPY proto proto
COPY xds xds
COPY test test
COPY examples examples
RUN npm run build && npm prune --omit=dev

# The same Node binary for the target platform.
FROM node:24.21.0-bookworm-slim@sha256:2fe369e969550cde8e867afc3fe370b260140cab4a23d467074295b42163d553 AS node

# Distroless with glibc and libstdc++ (what Node's official binary links against), no shell, uid 65532; the Node
# binary comes from the stage above, so the image ships exactly the Node the tests ran on.
FROM gcr.io/distroless/cc-debian12:nonroot@sha256:9dac0a79194e45a7da0158a9c6da57b217585af0786db3845d1f0ec1a0dd182f
COPY --from=node /usr/local/bin/node /nodejs/bin/node
WORKDIR /app
COPY --from=build /src/package.json ./
COPY --from=build /src/node_modules node_modules
COPY --from=build /src/dist/cli dist/cli
COPY --from=build /src/dist/controller dist/controller
COPY --from=build /src/dist/envoy dist/envoy
COPY --from=build /src/dist/ir dist/ir
COPY --from=build /src/dist/proto dist/proto
COPY --from=build /src/dist/xds dist/xds
USER 65532:65532
ENTRYPOINT ["/nodejs/bin/node", "dist/cli/main.js"]
