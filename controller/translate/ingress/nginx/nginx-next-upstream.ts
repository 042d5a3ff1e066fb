// ingress-nginx proxy-next-upstream and proxy-next-upstream-tries (compatibility layer): when nginx passes a request
// to the next server, as an Envoy retry policy. nginx tries another server (here: a retry avoids the endpoints
// already tried), never for POST, LOCK or PATCH unless `non_idempotent` (here: retries need an idempotent method),
// at most `tries` attempts in all (num_retries = tries - 1; 0, no limit in nginx, is 10 here).
import type { RetryPolicyIR } from '../../../../ir/index.js';
import type { Diagnostic } from '../../shared/diagnostics.js';
import { type Ingress, refOf } from '../../shared/kube-objects.js';
import { Reason } from '../../shared/reasons.js';
import { nginxAnnotationPrefix } from './catalog.js';

/** Names (after the prefix) this module reads. */
export const nginxNextUpstreamAnnotations = ['proxy-next-upstream', 'proxy-next-upstream-tries'] as const;

const n = (name: string): string => `${nginxAnnotationPrefix}${name}`;
/** ingress-nginx's ConfigMap defaults (proxy-next-upstream, proxy-next-upstream-tries). */
const defaultConditions = 'error timeout';
const defaultTries = 3;
/** Retries for nginx's "no limit" (tries 0). */
const unlimitedRetries = 10;

const statusConditions: Record<string, number> = { http_500: 500, http_502: 502, http_503: 503, http_504: 504, http_403: 403, http_404: 404, http_429: 429 };

/** The retry policy the annotations ask for; undefined when neither is set, or for "off". */
export function readNginxNextUpstream(ingress: Ingress, diagnostics: Diagnostic[]): RetryPolicyIR | undefined {
  const invalid = (name: string, value: string, accepted: string, effect: string): void => {
    const shown = value.length > 100 ? `${JSON.stringify(value.slice(0, 100))}...` : JSON.stringify(value);
    diagnostics.push({ object: refOf(ingress), severity: 'Warning', reason: Reason.InvalidAnnotation, message: `annotation ${n(name)} has invalid value ${shown}; accepted values: ${accepted}; ${effect}` });
  };
  const conditionsText = ingress.metadata.annotations?.[n('proxy-next-upstream')];
  const triesText = ingress.metadata.annotations?.[n('proxy-next-upstream-tries')];
  if (conditionsText === undefined && triesText === undefined) return undefined;
  let tries = defaultTries;
  if (triesText !== undefined) {
    if (/^\d{1,4}$/.test(triesText.trim())) tries = Number(triesText.trim());
    else invalid('proxy-next-upstream-tries', triesText, 'a whole number (0: no limit)', `using ${defaultTries}`);
  }
  const tokens = (conditionsText ?? defaultConditions).trim().split(/\s+/).filter((t) => t !== '');
  if (tokens.includes('off') || tries === 1) return undefined;
  const on = new Set<string>();
  const codes = new Set<number>();
  let idempotentOnly = true;
  const unknown: string[] = [];
  for (const token of tokens) {
    if (token === 'error') ['connect-failure', 'refused-stream', 'reset'].forEach((c) => on.add(c));
    else if (token === 'timeout') ['connect-failure', 'reset'].forEach((c) => on.add(c));
    else if (token === 'non_idempotent') idempotentOnly = false;
    else if (token === 'invalid_header') on.add('reset');
    else if (Object.hasOwn(statusConditions, token)) codes.add(statusConditions[token] as number);
    else unknown.push(token);
  }
  if (unknown.length > 0) {
    invalid('proxy-next-upstream', conditionsText ?? '', 'error, timeout, invalid_header, http_500, http_502, http_503, http_504, http_403, http_404, http_429, non_idempotent, off', `${unknown.join(', ')} ignored`);
  }
  if (codes.size > 0) on.add('retriable-status-codes');
  if (on.size === 0) return undefined;
  const retry: RetryPolicyIR = { on: [...on], numRetries: tries === 0 ? unlimitedRetries : tries - 1, otherEndpoint: true };
  if (codes.size > 0) retry.retriableStatusCodes = [...codes].sort((a, b) => a - b);
  if (idempotentOnly) retry.idempotentOnly = true;
  return retry;
}
