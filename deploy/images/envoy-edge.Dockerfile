# The Envoy of the edge-nodes variant: the upstream image, with the one capability it needs to bind ports 80/443
# on the node as a non-root user (uid 65532) granted to its binary. Build and push it like the controller image:
#   docker build -f deploy/images/envoy-edge.Dockerfile -t envoy-ingress/envoy-edge:1.40.0 .
# The tag follows the upstream Envoy release; bump both on an Envoy security release (README "Upgrades").
FROM envoyproxy/envoy:v1.40.0
RUN apt-get update \
    && apt-get install --no-install-recommends -y libcap2-bin \
    && setcap cap_net_bind_service=+ep /usr/local/bin/envoy \
    && apt-get purge -y libcap2-bin && apt-get autoremove -y \
    && rm -rf /var/lib/apt/lists/*
USER 65532:65532
