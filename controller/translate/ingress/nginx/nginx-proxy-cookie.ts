// ingress-nginx proxy-cookie-domain / proxy-cookie-path (nginx proxy_cookie_domain / proxy_cookie_path): the Domain
// and Path attributes of the backend's Set-Cookie headers are rewritten on their way to the client. The values are
// what ingress-nginx writes into the directive: "off" (the default) or "FROM TO". nginx's regex form ("~...") is not
// mapped (reported).
import type { CookieRewriteIR } from '../../../../ir/index.js';
import type { Diagnostic } from '../../shared/diagnostics.js';
import { type Ingress, refOf } from '../../shared/kube-objects.js';
import { Reason } from '../../shared/reasons.js';
import { nginxAnnotationPrefix } from './catalog.js';

export const nginxProxyCookieAnnotations = ['proxy-cookie-domain', 'proxy-cookie-path'] as const;

// ingress-nginx's validation of proxy-cookie-domain (proxy/main.go); the path is checked for the same shape.
const cookieDomainValue = /^(off|[-._~a-zA-Z0-9/:]+\s+[-._~a-zA-Z0-9/:]+)$/;
const cookiePathValue = /^(off|\/[^\s;,]*\s+\/[^\s;,]*)$/;

/** The rewrites of one Ingress, or undefined when both are off. */
export function readNginxProxyCookie(ingress: Ingress, diagnostics: Diagnostic[]): CookieRewriteIR | undefined {
  const rewrite: CookieRewriteIR = {};
  const read = (name: (typeof nginxProxyCookieAnnotations)[number], pattern: RegExp, accepted: string): { from: string; to: string } | undefined => {
    const raw = ingress.metadata.annotations?.[`${nginxAnnotationPrefix}${name}`];
    if (raw === undefined) return undefined;
    const value = raw.trim();
    if (!pattern.test(value)) {
      const why = value.startsWith('~') ? 'the regex form of the nginx directive is not mapped' : `accepted: ${accepted}`;
      diagnostics.push({
        object: refOf(ingress),
        severity: 'Warning',
        reason: Reason.InvalidAnnotation,
        message: `annotation ${nginxAnnotationPrefix}${name} has invalid value ${JSON.stringify(raw.slice(0, 100))}; ${why}; it is ignored`,
      });
      return undefined;
    }
    if (value === 'off') return undefined;
    const [from, to] = value.split(/\s+/) as [string, string];
    return { from, to };
  };
  const domain = read('proxy-cookie-domain', cookieDomainValue, '"off" or "DOMAIN REPLACEMENT", e.g. "localhost example.org"');
  const path = read('proxy-cookie-path', cookiePathValue, '"off" or "PATH REPLACEMENT", e.g. "/one/ /"');
  if (domain !== undefined) rewrite.domain = domain;
  if (path !== undefined) rewrite.path = path;
  return domain === undefined && path === undefined ? undefined : rewrite;
}
