// The ingress-nginx layer (opt-in: --nginx-annotations, an IngressClass parameter, --nginx-configmap) as a plug-in
// of the translator: its one entry point. translate() calls these phases and knows nothing else of the layer; each
// hands back new objects where it changes something (translator-layer.ts). In order:
// - before rules: the ConfigMap's defaults under the annotations, canary Ingresses set apart, the annotations read,
//   default backends scoped to their Ingress's hosts, regex and character-prefix paths;
// - per route: service-upstream, affinity, mirror, permanent/temporal redirects, capture-group rewrites, the
//   ConfigMap's hsts, gzip, server-tokens and forwarded headers, default-backend and custom-http-errors;
// - per virtual host: host fallbacks, canaries, app-root, server-alias and from-to-www-redirect, ssl-passthrough
//   hosts, ingress-nginx's https redirects;
// - final: passthrough chains, fallback clusters and error pages, authentication; the ConfigMap's listener
//   settings; the Services and Secrets the annotations name.
import { compareStrings } from '../../../../ir/index.js';
import { passRoutes } from '../collected-routes.js';
import { checkClassNginxSettings, classNginxSetting, nginxAnnotationsEnabled } from '../ingress-class-nginx.js';
import { type Ingress, refKey, refOf } from '../../shared/kube-objects.js';
import type { TranslateOptions } from '../../shared/options.js';
import type { References } from '../../shared/references.js';
import type { FinishedDataPlane, LayerPhases, LayerVirtualHosts, TranslationContext, TranslatorLayer } from '../translator-layer.js';
import { withNginxAuth, nginxAuthByIngress, nginxAuthReferences } from './nginx-auth.js';
import { type NginxIngressAnnotations, parseAnnotationsWithNginx } from './nginx-annotations.js';
import { nginxAffinityPass } from './nginx-affinity.js';
import { type NginxCanary, partitionNginxCanaries, withNginxCanaries } from './nginx-canary.js';
import { findNginxConfigMap, readNginxConfigMap } from './nginx-configmap.js';
import { enabledRefs, nginxConfigMapListener, nginxForwardedHeadersPass, nginxGzipPass, nginxHstsPass, nginxServerTokensPass, withNginxConfigMapDefaults } from './nginx-configmap-apply.js';
import { type NginxEdge, nginxEdge, nginxEdgeReferences, withNginxEdge } from './nginx-edge.js';
import { hasHostScopedDefaultBackend, hostFallback, hostScopedDefaultBackends } from './nginx-host-default-backends.js';
import { nginxMirrorPass, nginxMirrorServices } from './nginx-mirror.js';
import { type NginxRedirectSettings, nginxRedirectsByIngress, nginxUrlRedirectPass, withNginxHttpsRedirects } from './nginx-redirect.js';
import { nginxCaptureRewritePass, withNginxAppRoots } from './nginx-regex.js';
import { nginxRegexPaths } from './nginx-regex-hosts.js';
import { nginxWwwRedirects, type WithNginxServerNames, withNginxServerAliases, wwwRedirectTlsHosts } from './nginx-server-names.js';
import { nginxServiceUpstreamPass } from './nginx-service-upstream.js';
import { nginxAuthTlsByIngress, nginxAuthTlsSecrets, withNginxAuthTls, withSecretReferences } from './nginx-auth-tls.js';
import { mergedByName, nginxProxySslPass, type NginxProxySslResources } from './nginx-proxy-ssl.js';

/** `question` asked once per Ingress (the class lookup behind it is not free). */
function memoized(question: (ingress: Ingress) => boolean): (ingress: Ingress) => boolean {
  const answers = new Map<Ingress, boolean>();
  return (ingress) => {
    let answer = answers.get(ingress);
    if (answer === undefined) answers.set(ingress, (answer = question(ingress)));
    return answer;
  };
}

/** `references` with `services` (`namespace/name`) added. */
function withServices(references: References, services: readonly string[]): References {
  if (services.length === 0) return references;
  return { ...references, services: [...new Set([...references.services, ...services])].sort(compareStrings) };
}

function begin(context: TranslationContext): LayerPhases {
  const { state, options, diagnostics, services, clusters, allowExternalName } = context;
  // Whether an Ingress is read with the nginx layer: asked once per Ingress (a class lookup), and not at all when
  // neither the flag nor any class turns the layer on.
  const nginxAnywhere = options.nginxAnnotations === true || state.ingressClasses.some((c) => classNginxSetting(c) === true);
  const enabled = nginxAnywhere ? memoized((ingress) => nginxAnnotationsEnabled(ingress, state.ingressClasses, options)) : (): boolean => false;
  // The ingress-nginx ConfigMap (--nginx-configmap): its values are the defaults of the nginx layer's annotations.
  const configMap = options.nginxConfigMap === undefined ? undefined : readNginxConfigMap(findNginxConfigMap(state, options.nginxConfigMap), options.nginxConfigMap, diagnostics);
  // The ConfigMap's http-redirect-code is the status of the nginx layer's https redirects.
  const redirectOptions: TranslateOptions =
    configMap === undefined ? options : { ...options, nginxHttpRedirectCode: configMap.httpRedirectCode, nginxNoTlsRedirectLocations: configMap.noTlsRedirectLocations };
  // ingress-nginx's allow-cross-namespace-resources: the flag, or the ConfigMap key.
  const layerOptions = { allowCrossNamespace: options.nginxAllowCrossNamespaceResources === true || configMap?.allowCrossNamespaceResources === true };
  // auth-url and mirror-target: the Ingress's own namespace's Services, else what the controller allows (url-cluster.ts).
  const urlTargets = { crossNamespace: layerOptions.allowCrossNamespace, allowedHosts: options.allowedUrlTargets ?? [] };

  // What the phases learn, for the later ones.
  let mains: readonly Ingress[] = [];
  let canaries: readonly NginxCanary[] = [];
  const annotations = new Map<Ingress, NginxIngressAnnotations>();
  const annotationsByRef = new Map<string, NginxIngressAnnotations>();
  let nginxRedirects: ReadonlyMap<string, NginxRedirectSettings> = new Map();
  let edge: NginxEdge | undefined;
  let auth: ReturnType<typeof nginxAuthByIngress> = new Map();
  let contributorsByHost: ReadonlyMap<string, readonly Ingress[]> = new Map();
  let servedAs: (host: string) => string = (host) => host;
  const proxySsl: NginxProxySslResources = { certificateAuthorities: new Map(), certificates: new Map(), secrets: new Set() };
  let authTlsSecrets: string[] = [];

  return {
    ingresses(served) {
      const ingresses = configMap === undefined ? served : withNginxConfigMapDefaults(served, enabled, configMap);
      // ingress-nginx canary Ingresses route nothing themselves: their paths join the main Ingresses' routes.
      const partition = partitionNginxCanaries(ingresses, diagnostics, enabled);
      mains = partition.mains;
      canaries = partition.canaries;
      checkClassNginxSettings(state.ingressClasses, options, diagnostics);
      return { ingresses, mains };
    },

    annotations(ingress) {
      const parsed = parseAnnotationsWithNginx(ingress, diagnostics, enabled(ingress), layerOptions);
      annotations.set(ingress, parsed);
      annotationsByRef.set(refKey(refOf(ingress)), parsed);
      return parsed;
    },

    hostScopedDefaultBackend: (ingress) => hasHostScopedDefaultBackend(ingress, enabled),

    hostDefaults(ingresses) {
      // ingress-nginx scopes the default backend of an Ingress with rules to its own hosts.
      return hostScopedDefaultBackends(ingresses, enabled, services, clusters, diagnostics, allowExternalName);
    },

    rulePaths(ingresses) {
      // use-regex or rewrite-target: every path of the host is a regex (nginx-regex-hosts.ts); ImplementationSpecific
      // paths of nginx-layer Ingresses are nginx prefix locations (character prefixes).
      return { regex: nginxRegexPaths(ingresses, enabled), characterPrefix: enabled };
    },

    routes(collected, hosts) {
      // service-upstream swaps the cluster for its ClusterIP variant before the affinity cookie names the cluster.
      contributorsByHost = hosts.contributors;
      let routes = passRoutes(collected, 'none', nginxServiceUpstreamPass(annotationsByRef, clusters, services, diagnostics));
      routes = passRoutes(routes, 'none', nginxAffinityPass(annotationsByRef, clusters));
      routes = passRoutes(routes, 'none', nginxMirrorPass(mains, annotationsByRef, clusters, services, diagnostics, urlTargets));
      nginxRedirects = nginxRedirectsByIngress(annotationsByRef);
      routes = passRoutes(routes, 'all', nginxUrlRedirectPass(nginxRedirects));
      routes = passRoutes(routes, 'none', nginxCaptureRewritePass(annotationsByRef));
      // proxy-ssl-*: a cluster variant per Ingress with TLS backends (after service-upstream picked the cluster).
      const ingressesByRef = new Map(mains.map((ingress) => [refKey(refOf(ingress)), ingress]));
      routes = passRoutes(routes, 'none', nginxProxySslPass(annotationsByRef, ingressesByRef, clusters, state.secrets, diagnostics, proxySsl));
      if (configMap !== undefined) {
        const on = enabledRefs(mains, enabled);
        routes = passRoutes(routes, 'none', nginxHstsPass(hosts.tls, on, configMap));
        routes = passRoutes(routes, 'none', nginxGzipPass(on, configMap));
        routes = passRoutes(routes, 'none', nginxServerTokensPass(on, configMap));
        routes = passRoutes(routes, 'none', nginxForwardedHeadersPass(on, configMap));
      }
      // ssl-passthrough, default-backend and custom-http-errors (nginx-edge.ts).
      edge = nginxEdge(mains, { enabled, services, clusters, diagnostics, allowExternalName, contributorsByHost: hosts.contributors, defaultBackend: routes.defaultBackend });
      return passRoutes(routes, 'controller-wide', edge.pass);
    },

    hostFallback: (contributors, routes) => hostFallback(contributors, enabled, routes.hostDefaults, routes.defaultBackend),

    virtualHosts(assembled): LayerVirtualHosts {
      let virtualHosts = withNginxCanaries(canaries, assembled, { services, clusters, diagnostics, allowExternalName, annotations: annotationsByRef, mains });
      virtualHosts = withNginxAppRoots(virtualHosts, mains, annotations, diagnostics);
      // server-alias (more names of a host) and from-to-www-redirect (nginx-server-names.ts).
      const serverNamesOf = (ingress: Ingress): WithNginxServerNames['nginxServerNames'] => (annotations.get(ingress) as WithNginxServerNames | undefined)?.nginxServerNames;
      const aliases = withNginxServerAliases(virtualHosts, mains, serverNamesOf, diagnostics);
      const www = nginxWwwRedirects(aliases.virtualHosts, aliases.aliasOf, mains, serverNamesOf, options, diagnostics);
      servedAs = (host) => aliases.aliasOf.get(host) ?? host;
      return {
        virtualHosts: aliases.virtualHosts,
        ownNames: www,
        servedAs,
        tlsHosts: (tlsHosts) => wwwRedirectTlsHosts(www, tlsHosts),
        nameCopies: aliases.aliasOf.size > 0 || www.names.size > 0,
      };
    },

    passesThroughTls: (host) => edge?.passthrough.hosts.has(host) === true,

    plainHttpVirtualHost(plain, routes, contributors, hasTls) {
      // ingress-nginx's own redirect shape for the Ingresses read through the layer (nginx-redirect.ts).
      return nginxRedirects.size === 0 ? plain : withNginxHttpsRedirects(plain, routes, contributors, hasTls, nginxRedirects, redirectOptions);
    },

    listenerSettings: () => (configMap === undefined ? undefined : nginxConfigMapListener(configMap)),

    finish(gateway) {
      const withEdge = edge === undefined ? gateway : withNginxEdge(gateway, edge);
      // auth-type basic / auth-url, on the final routes (nginx-auth.ts).
      auth = nginxAuthByIngress(annotations);
      const withAuth = withNginxAuth(withEdge, auth, { secrets: state.secrets, services, urlTargets }, diagnostics);
      // auth-tls-*: per host, on the final tables and TLS chains (nginx-auth-tls.ts).
      const authTls = nginxAuthTlsByIngress(annotations);
      authTlsSecrets = nginxAuthTlsSecrets(authTls);
      const withAuthTls = withNginxAuthTls(withAuth, authTls, { contributors: contributorsByHost, servedAs, secrets: state.secrets }, diagnostics);
      return withProxySslResources(withAuthTls, proxySsl);
    },

    references(references) {
      const withAuth = nginxAuthReferences(auth, references);
      const withSecrets = withSecretReferences(withAuth, [...authTlsSecrets, ...proxySsl.secrets]);
      return withServices(edge === undefined ? withSecrets : nginxEdgeReferences(edge, withSecrets), nginxMirrorServices(annotationsByRef));
    },
  };
}

/** The gateway with the trusted CAs and client certificates the proxy-ssl clusters name. */
function withProxySslResources(gateway: FinishedDataPlane, resources: NginxProxySslResources): FinishedDataPlane {
  if (resources.certificateAuthorities.size === 0 && resources.certificates.size === 0) return gateway;
  const { ir } = gateway;
  const certificateAuthorities = mergedByName(ir.certificateAuthorities, resources.certificateAuthorities.values());
  const secrets = mergedByName(ir.secrets, resources.certificates.values()) ?? ir.secrets;
  return { ...gateway, ir: { ...ir, secrets, ...(certificateAuthorities === undefined ? {} : { certificateAuthorities }) } };
}

/** The ingress-nginx layer of the translator. */
export const nginxLayer: TranslatorLayer = { begin };
