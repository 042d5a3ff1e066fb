# The controller image: `docker build -t envoy-ingress/controller:0.1.0 .`
# The build stage runs on the builder's own platform (multi-arch builds do not emulate it): its output is
# JavaScript, and no dependency has native code, so the same node_modules serve amd64 and arm64.
FROM --platform=$BUILDPLATFORM node:20-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY tsconfig.json ./
COPY cli cli
COPY controller controller
COPY envoy envoy
COPY proto proto
COPY xds xds
COPY test test
COPY examples examples
RUN npm run build && npm prune --omit=dev

FROM gcr.io/distroless/nodejs20-debian12:nonroot
WORKDIR /app
COPY --from=build /src/package.json ./
COPY --from=build /src/node_modules node_modules
COPY --from=build /src/dist/cli dist/cli
COPY --from=build /src/dist/controller dist/controller
COPY --from=build /src/dist/envoy dist/envoy
COPY --from=build /src/dist/proto dist/proto
COPY --from=build /src/dist/xds dist/xds
USER 65532:65532
ENTRYPOINT ["/nodejs/bin/node", "dist/cli/main.js"]
