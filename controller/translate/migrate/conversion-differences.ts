// What a converted Ingress path can do differently on the Gateway API, when no nginx annotation is the cause: the
// ids the migration report names (beside the nginx catalog's annotation names), each with what to do about it.

export interface ConversionDifference {
  id: string;
  message: string;
  action: string;
}

/** Conversion-only differences, by id. */
export const ConversionDifferences = {
  wildcardHostDepth: {
    id: 'wildcard-host-depth',
    message: 'an Ingress wildcard host (*.example.com) covers exactly one label; a Gateway API wildcard hostname covers one or more (a.b.example.com too)',
    action: 'route the deeper names elsewhere with a more specific hostname, or accept that they reach this route',
  },
  regexPrecedence: {
    id: 'regex-precedence',
    message: 'ingress-nginx tries paths longest first whatever their kind; the Gateway API tries every RegularExpression match before every PathPrefix, so this regex path now takes requests a longer prefix path of the host took (or loses them to it)',
    action: 'make the paths of the host all regular expressions, or give the regex path a pattern that no longer matches the prefix path',
  },
  misdirectedRequest: {
    id: 'misdirected-request-421',
    message: 'the Gateway has several HTTPS listeners on the port: a request whose Host belongs to another listener than the one its TLS name (SNI) chose, or to no name of a listener with a hostname (an unknown Host, or a client sending no SNI), is answered 421 Misdirected Request; ingress-nginx serves it by its Host whatever the SNI',
    action: 'none for browsers and HTTP/2 clients (421 makes them retry on a connection for that name); clients that send no SNI, or another name than the Host, must send the host\'s own name',
  },
  missingBackend: {
    id: 'missing-backend',
    message: 'the backend Service (or its port) does not exist: the Ingress path answers 503, the HTTPRoute rule answers 500',
    action: 'create the Service or fix the backend',
  },
  externalNameBackend: {
    id: 'external-name-backend',
    message: 'the backend is an ExternalName Service: the Gateway API refuses it as a backendRef here (UnsupportedBackendRef, answered 500); the Ingress path answered 503 without --allow-external-name, else proxied to the name',
    action: 'point the route at a Service with endpoints (or an implementation-specific backend kind)',
  },
  prefixTrailingSlash: {
    id: 'prefix-trailing-slash',
    message: 'the host has Prefix paths /foo and /foo/: for the Ingress the longer one as written wins every request under /foo; for the Gateway API both are the same prefix and the older route wins',
    action: 'drop one of the two paths (they match the same requests)',
  },
  defaultBackendOtherHosts: {
    id: 'default-backend-of-hosts',
    message: 'requests no path of this host matches are answered by the default backend (spec.defaultBackend); converted to a PathPrefix "/" rule on the host\'s route',
    action: 'none, unless an HTTPRoute added later for this host has a "/" rule of its own',
  },
  tooManyListeners: {
    id: 'too-many-listeners',
    message: 'the Gateway needs more than 64 listeners (one HTTPS listener per TLS host), more than a Gateway may have: the API server refuses it',
    action: 'split the hosts over several Gateways or ListenerSets, or use fewer certificates (a wildcard)',
  },
  resourceBackend: {
    id: 'resource-backend',
    message: 'a `resource` backend has no Gateway API equivalent: the rule has no backendRefs and answers 500 (the Ingress path answered 503)',
    action: 'point the path at a Service',
  },
  invalidPath: {
    id: 'invalid-path',
    message: 'the path is not served by the Ingress either (reported there as InvalidPath); it is left out of the HTTPRoute',
    action: 'fix or remove the path',
  },
  defaultBackend: {
    id: 'default-backend',
    message: 'spec.defaultBackend answers the requests no rule matches; converted to a PathPrefix "/" rule on the Ingress\'s hosts (a catch-all route for an Ingress without rules)',
    action: 'none, unless another route of the host also has a "/" rule (the older route wins)',
  },
  httpsRedirectTrailingSlash: {
    id: 'https-redirect-trailing-slash',
    message: "ingress-nginx's http -> https redirect drops a trailing slash of the path (unless preserve-trailing-slash); the Gateway API RequestRedirect keeps the path as sent",
    action: 'none usually: the https request then reaches the same route',
  },
  appRootListenerPort: {
    id: 'app-root-listener-port',
    message: "ingress-nginx's app-root redirect keeps the Host the client sent; a Gateway API RequestRedirect without a port names the listener's port in the Location (the spec), which differs when the HTTP listener is not on port 80",
    action: 'none when the Gateway listens on 80 (the usual case); otherwise clients follow the Location to the listener port',
  },
  redirectKeepsQuery: {
    id: 'redirect-keeps-query',
    message: "nginx's `return` (permanent-redirect, temporal-redirect) never adds the request's query to the Location; a Gateway API RequestRedirect keeps it",
    action: 'none usually; if the target must not see the query, redirect elsewhere first',
  },
  forwardedHost: {
    id: 'x-forwarded-host',
    message: 'ingress-nginx (and this controller with --nginx-annotations) sends X-Forwarded-Host with the client\'s Host to the backend; an HTTPRoute cannot set a header from the request, so the backend gets none',
    action: 'if the backend reads X-Forwarded-Host (e.g. with upstream-vhost), make it read the Host the route sends',
  },
  captureRewrite: {
    id: 'rewrite-capture-groups',
    message: 'rewrite-target with capture groups ($1..$9) has no Gateway API equivalent beyond a prefix replacement: the path is matched by its regex, sent to the backend unchanged',
    action: 'rewrite in the backend, or change the path to the form PREFIX(/|$)(.*) with rewrite-target /$2, which converts to ReplacePrefixMatch',
  },
  hostConflict: {
    id: 'host-listener-conflict',
    message: 'another Ingress (of another class) already claims this host on the same Gateway port: the converted route attaches to both Gateways, the older Gateway serves the host',
    action: 'move one of the classes to another port (--http-port, --https-port) or merge the classes',
  },
  listenerSetNamespace: {
    id: 'listener-set-namespace',
    message: 'with --listener-sets, the host is covered by an HTTPS listener of another namespace\'s ListenerSet, which takes only routes of its own namespace: over HTTPS this route is not served there, where the Gateway\'s listener served it',
    action: 'give the host a TLS entry (a certificate) of its own namespace, or migrate with --allow-cross-namespace-hosts as run is given it',
  },
  tlsRedirectNoCertificate: {
    id: 'force-ssl-redirect-without-tls',
    message: 'force-ssl-redirect on a host without a TLS entry: the redirect is carried, but no HTTPS listener serves the host on the Gateway, so the https request finds nothing',
    action: 'add the host to a TLS entry (a certificateRef on the Gateway) before switching',
  },
} as const satisfies Record<string, ConversionDifference>;
