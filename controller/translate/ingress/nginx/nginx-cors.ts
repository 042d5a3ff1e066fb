// ingress-nginx enable-cors and the cors-* family, read exactly as ingress-nginx's cors parser reads them
// (internal/ingress/annotations/cors/main.go) and turned into what its template does (nginx.tmpl, "CORS"):
// - cors-allow-origin "*" (the default, also for a blank or invalid list): every response gets
//   Access-Control-Allow-Origin: * and the other headers, and every OPTIONS request is answered 204 by the proxy;
// - a list of origins: only requests whose Origin matches one of them (case-insensitive, a `*.` matching one label,
//   the match anchored at the end only: `if ($http_origin ~* ((o1)|(o2))$)`) get the headers, with the request's own
//   Origin echoed, and only their OPTIONS requests are answered 204; other requests go to the backend untouched.
// Values ingress-nginx rejects fall back to its defaults (reported here; ingress-nginx only logs them).
import type { CorsResponseIR, HeaderIR } from '../../../../ir/index.js';
import type { Diagnostic } from '../../shared/diagnostics.js';
import { type Ingress, refOf } from '../../shared/kube-objects.js';
import { Reason } from '../../shared/reasons.js';
import { nginxAnnotationPrefix } from './catalog.js';

const n = (name: string): string => `${nginxAnnotationPrefix}${name}`;

export const nginxCorsAnnotations = [
  'enable-cors',
  'cors-allow-origin',
  'cors-allow-methods',
  'cors-allow-headers',
  'cors-expose-headers',
  'cors-allow-credentials',
  'cors-max-age',
] as const;

export const defaultCorsMethods = 'GET, PUT, POST, DELETE, PATCH, OPTIONS';
export const defaultCorsHeaders = 'DNT,Keep-Alive,User-Agent,X-Requested-With,If-Modified-Since,Cache-Control,Content-Type,Range,Authorization';
export const defaultCorsMaxAge = 1728000;

// ingress-nginx's own patterns (cors/main.go, parser/validators.go).
const originListValidator = /^((((([a-z]+:\/\/)?(\*\.)?[A-Za-z0-9\-.]*(:\d+)?,?)|null)+)|\*)?$/;
const originPattern = /^([a-z]+:\/\/(\*\.)?[A-Za-z0-9\-.]*(:\d+)?|\*|null)?$/;
const methodsPattern = /^([A-Za-z]+,?\s?)+$/;
const headersPattern = /^[A-Za-z0-9-_, ]*$/;
const exposeHeadersPattern = /^(([A-Za-z0-9\-_]+|\*),?\s?)+$/;

/** Go's strconv.ParseBool. */
function goBool(value: string): boolean | undefined {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(value)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(value)) return false;
  return undefined;
}

/** Go's strconv.Atoi (within what a header value needs). */
function goInt(value: string): number | undefined {
  return /^[+-]?\d{1,15}$/.test(value) ? Number(value) : undefined;
}

/** ingress-nginx's normalizeString: every line trimmed. */
function normalize(value: string): string {
  return value
    .split('\n')
    .map((line) => line.trim())
    .join('\n');
}

function escapeRegex(text: string): string {
  return text.replace(/[\\^$.|?*+()[\]{}]/g, '\\$&');
}

/** One allowed origin as ingress-nginx's buildOriginRegex writes it: quoted, the first `*` one label. */
function originRegex(origin: string): string {
  return escapeRegex(origin).replace('\\*', '[A-Za-z0-9\\-]+');
}

/** The allowed origins ingress-nginx ends up with: ['*'], a list, or [] (CORS then does nothing at all). */
export function nginxCorsOrigins(raw: string | undefined, report: (message: string) => void): string[] {
  if (raw === undefined) return ['*'];
  if (!originListValidator.test(raw.replaceAll(' ', '')) || /[\r\n]/.test(raw)) {
    report(`annotation ${n('cors-allow-origin')} has invalid value ${JSON.stringify(raw.slice(0, 100))}; accepted: "*" or a comma-separated list of scheme://host[:port] (a "*." before the host for one label); using "*", as ingress-nginx does`);
    return ['*'];
  }
  const value = normalize(raw);
  if (value === '') return ['*'];
  const origins: string[] = [];
  for (const part of value.split(',')) {
    const origin = part.trim();
    if (origin === '') continue;
    if (origin === '*') return ['*'];
    if (!originPattern.test(origin)) {
      report(`annotation ${n('cors-allow-origin')}: origin ${JSON.stringify(origin)} is skipped (it needs a scheme, e.g. "https://${origin}"), as ingress-nginx skips it`);
      continue;
    }
    origins.push(origin);
  }
  return origins;
}

/**
 * The CORS behaviour of one Ingress, or undefined when enable-cors is not true (or no origin is left, in which case
 * ingress-nginx's CORS block does nothing).
 */
export function readNginxCors(ingress: Ingress, diagnostics: Diagnostic[]): CorsResponseIR | undefined {
  const raw = (name: string): string | undefined => ingress.metadata.annotations?.[n(name)];
  const report = (message: string): void => {
    diagnostics.push({ object: refOf(ingress), severity: 'Warning', reason: Reason.InvalidAnnotation, message });
  };
  const enabledText = raw('enable-cors');
  const enabled = enabledText === undefined ? false : goBool(enabledText);
  if (enabled !== true) {
    if (enabledText !== undefined && enabled === undefined) report(`annotation ${n('enable-cors')} has invalid value ${JSON.stringify(enabledText)}; accepted values: "true", "false"; CORS stays off`);
    for (const name of nginxCorsAnnotations.slice(1).filter((a) => raw(a) !== undefined)) {
      report(`annotation ${n(name)} ignored: CORS is only enabled by ${n('enable-cors')} "true"`);
    }
    return undefined;
  }
  const origins = nginxCorsOrigins(raw('cors-allow-origin'), report);
  if (origins.length === 0) {
    report(`annotation ${n('cors-allow-origin')} leaves no valid origin: CORS does nothing, as in ingress-nginx`);
    return undefined;
  }

  /** A string annotation checked against `pattern` (spaces removed first, as ingress-nginx validates). */
  const text = (name: string, pattern: RegExp, fallback: string, what: string): string => {
    const value = raw(name);
    if (value === undefined) return fallback;
    const normalized = normalize(value);
    if (normalized !== '' && pattern.test(value.replaceAll(' ', '')) && pattern.test(normalized) && !/[\r\n]/.test(value)) return normalized;
    if (normalized !== '') report(`annotation ${n(name)} has invalid value ${JSON.stringify(value.slice(0, 100))}; accepted: ${what}; ${fallback === '' ? 'no header is sent' : `using ${JSON.stringify(fallback)}`}, as ingress-nginx does`);
    return fallback;
  };
  const methods = text('cors-allow-methods', methodsPattern, defaultCorsMethods, 'a comma-separated list of methods');
  const allowHeaders = text('cors-allow-headers', headersPattern, defaultCorsHeaders, 'a comma-separated list of header names');
  const expose = text('cors-expose-headers', exposeHeadersPattern, '', 'a comma-separated list of header names or "*"');

  const credentialsText = raw('cors-allow-credentials');
  const credentials = credentialsText === undefined ? true : goBool(credentialsText);
  if (credentials === undefined) report(`annotation ${n('cors-allow-credentials')} has invalid value ${JSON.stringify(credentialsText)}; accepted values: "true", "false"; using "true", as ingress-nginx does`);
  const maxAgeText = raw('cors-max-age');
  const maxAge = maxAgeText === undefined ? defaultCorsMaxAge : goInt(maxAgeText);
  if (maxAge === undefined) report(`annotation ${n('cors-max-age')} has invalid value ${JSON.stringify(maxAgeText)}; accepted: a whole number of seconds; using ${defaultCorsMaxAge}, as ingress-nginx does`);

  const headers: HeaderIR[] = [];
  if (credentials !== false) headers.push({ name: 'Access-Control-Allow-Credentials', value: 'true' });
  headers.push({ name: 'Access-Control-Allow-Methods', value: methods }, { name: 'Access-Control-Allow-Headers', value: allowHeaders });
  if (expose !== '') headers.push({ name: 'Access-Control-Expose-Headers', value: expose });
  headers.push({ name: 'Access-Control-Max-Age', value: String(maxAge ?? defaultCorsMaxAge) });
  if (origins[0] === '*') return { headers };
  // nginx: `$http_origin ~* ((o1)|(o2))$`, case-insensitive and anchored at the end only; RE2 matches the whole value.
  return { originRegex: `(?i)^.*(?:${origins.map(originRegex).join('|')})$`, headers };
}
