/** What the translator needs to know about this controller; all plain values, no I/O. */
export interface TranslateOptions {
  /** Name of the IngressClass this controller serves. */
  ingressClassName: string;
  /** Value of IngressClass spec.controller that marks a class as ours. */
  controllerName: string;
  /** Value of GatewayClass spec.controllerName that marks a Gateway API class as ours; absent: defaultGatewayControllerName. */
  gatewayControllerName?: string;
  /** HTML body returned with 404 when no rule and no default backend matches. */
  notFoundPage: string;
  /** Port used in http -> https redirects (the port clients reach the HTTPS listener on). */
  httpsRedirectPort: number;
  /**
   * Serve backends that are ExternalName Services (a DNS cluster to spec.externalName). Off by default: an
   * ExternalName lets whoever writes Services in a namespace point the proxy at any name (--allow-external-name).
   */
  allowExternalName?: boolean;
  /**
   * Also read ingress-nginx's `nginx.ingress.kubernetes.io/*` annotations (translate/ingress/nginx/, --nginx-annotations);
   * our own annotations win where both set the same thing.
   */
  nginxAnnotations?: boolean;
  /**
   * The ingress-nginx ConfigMap (--nginx-configmap): its settings, and ingress-nginx's defaults for the keys it
   * does not set, apply to the Ingresses whose nginx annotations are read (translate/ingress/nginx/nginx-configmap.ts).
   */
  nginxConfigMap?: { namespace: string; name: string };
  /**
   * Status of the https redirects (ssl-redirect, force-ssl-redirect) of Ingresses read through the nginx layer:
   * ingress-nginx's ConfigMap key http-redirect-code (default 308). Our own annotations keep 301.
   */
  nginxHttpRedirectCode?: 301 | 302 | 307 | 308;
  /**
   * Routes whose path starts with one of these are not redirected to https by the nginx layer (ingress-nginx's
   * ConfigMap key no-tls-redirect-locations, `/.well-known/acme-challenge` by default there); absent: none.
   */
  nginxNoTlsRedirectLocations?: readonly string[];
  /**
   * Let ingress-nginx annotations name objects of another namespace (`auth-secret: other/name`). Off by default: a
   * tenant could make another namespace's Secret its users list (ingress-nginx's `allow-cross-namespace-resources`,
   * --nginx-allow-cross-namespace-resources).
   */
  nginxAllowCrossNamespaceResources?: boolean;
  /**
   * Merge rules, TLS entries and host-wide settings of every namespace into a host, as ingress-nginx does
   * (--allow-cross-namespace-hosts), for single-tenant clusters. Off by default: the namespace of the oldest Ingress
   * routing a host owns it, other namespaces' parts for it are refused (ingress/host-ownership.ts), and a tenant's
   * spec.defaultBackend answers only its own hosts.
   */
  allowCrossNamespaceHosts?: boolean;
  /**
   * Hosts auth-url and mirror-target may name beyond Services of the Ingress's own namespace (--allow-url-target:
   * `auth.example.com`, `*.example.com`, `oauth2-proxy.auth.svc`). Absent: none (issue 25: a tenant's auth-url or
   * mirror copy must not reach another tenant's Service or an arbitrary host through the shared proxy).
   */
  allowedUrlTargets?: string[];
  /**
   * The namespace whose Ingresses may give the cluster-wide default backend (spec.defaultBackend of an Ingress
   * without rules; --default-backend-namespace), while hosts are owned by namespaces; absent: none may, hosts
   * without a default backend of their own answer the 404 page.
   */
  defaultBackendNamespace?: string;
  /**
   * Paths (as written) the served Ingresses of one namespace may have (--namespace-route-budget); past it the newest
   * Ingresses of that namespace are refused whole. The namespace's Gateway API routes have the same budget again, for
   * the Envoy routes they write (gateway-api/route-budget.ts). Absent: defaultNamespaceRouteBudget.
   */
  namespaceRouteBudget?: number;
  /**
   * The ports of the Ingress listeners (--http-port, --https-port); absent: defaultListenerPorts. The build pipeline
   * hands them over from the Envoy options.
   */
  listenerPorts?: { http: number; https: number };
  /**
   * How each Gateway gets addresses of its own (gateway-api/gateway-ports.ts, gateway-address-pool.ts). Absent: every
   * Gateway binds its listener ports on --listen-address, and Gateways sharing a port share its listener.
   */
  gatewayAddressing?: GatewayAddressing;
}

/**
 * `service` (in a cluster, --gateway-port-range): each Gateway's listener ports map onto Envoy ports of its own from
 * `portRange`, recorded in a ConfigMap of `namespace` (the controller's; gateway-api/gateway-port-record.ts), and one
 * Service per Gateway in the Gateway's namespace maps them back and gives the addresses.
 * `pool` (standalone, --gateway-address-pool): each Gateway gets an IP of `pool` that Envoy binds its listener
 * ports on.
 */
export type GatewayAddressing =
  | {
      mode: 'service';
      namespace: string;
      portRange: { first: number; last: number };
      /**
       * The IPs the cluster's load balancer gives a Service on request (--gateway-load-balancer-addresses): a Gateway's
       * spec.addresses outside them cannot be had (AddressNotUsable). Absent: unknown, every address is asked for.
       */
      loadBalancerAddresses?: readonly string[];
    }
  | { mode: 'pool'; pool: readonly string[] };

/** The GatewayClass controllerName this controller serves when the options name none. */
export const defaultGatewayControllerName = 'envoy-ingress.io/gateway-controller';

/** The Ingress listeners' ports when none are given: the CLI's defaults. */
export const defaultListenerPorts = { http: 8080, https: 8443 } as const;

export const defaultNotFoundPage = `<!DOCTYPE html>
<html><head><title>404 Not Found</title></head>
<body><h1>404 Not Found</h1><p>No Ingress rule matches this host and path.</p><hr><p>envoy-ingress</p></body></html>
`;

export const defaultTranslateOptions: TranslateOptions = {
  ingressClassName: 'envoy-ingress',
  controllerName: 'envoy-ingress.io/ingress-controller',
  notFoundPage: defaultNotFoundPage,
  httpsRedirectPort: 443,
};

/** Prefix of this controller's own annotations. */
export const annotationPrefix = 'envoy-ingress.io/';

/** The route budget per namespace when none is given (--namespace-route-budget): generous for a team, far below what
 * hurts Envoy. */
export const defaultNamespaceRouteBudget = 10_000;
