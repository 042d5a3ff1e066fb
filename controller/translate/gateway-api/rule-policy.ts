// A rule's timeouts and retry -> the route policy's request timeout and retry policy.
// - timeouts.request: the whole exchange (Envoy's route timeout; `0s` turns it off).
// - timeouts.backendRequest: each try to a backend (a per-try timeout; `0s`: none). Without a request timeout the
//   route's own timeout is then off, so that tries x backendRequest bounds the exchange instead of Envoy's 15 s.
// - retry (experimental channel): codes -> retriable status codes, attempts -> retries after the first try,
//   backoff -> the first wait between tries (Envoy doubles it up to ten times that).
import type { RetryPolicyIR, RoutePolicyIR } from '../../../ir/index.js';
import type { HTTPRouteRule } from '../shared/kube-objects.js';
import { parseGatewayDuration } from './gateway-duration.js';

export type RulePolicy = { valid: true; policy: Pick<RoutePolicyIR, 'requestTimeoutMs' | 'retry'> } | { valid: false; error: string };

/** Retries without codes: a failure to reach the backend only (the spec leaves it to the implementation). */
const connectionFailures = ['connect-failure', 'refused-stream', 'reset'];

export function translateRulePolicy(rule: HTTPRouteRule): RulePolicy {
  const duration = (field: string, text: string | undefined): number | undefined | { error: string } => {
    if (text === undefined) return undefined;
    const ms = parseGatewayDuration(text);
    return ms === undefined ? { error: `${field} ${JSON.stringify(text)} is not a Gateway API Duration (e.g. 500ms, 1m30s)` } : ms;
  };
  const request = duration('timeouts.request', rule.timeouts?.request);
  const backendRequest = duration('timeouts.backendRequest', rule.timeouts?.backendRequest);
  const backoff = duration('retry.backoff', rule.retry?.backoff);
  for (const d of [request, backendRequest, backoff]) if (typeof d === 'object') return { valid: false, error: d.error };
  const requestMs = request as number | undefined;
  const backendMs = backendRequest as number | undefined;
  const backoffMs = backoff as number | undefined;
  // The spec: a backendRequest timeout no longer than the request timeout (0 is "none", the longest).
  if (requestMs !== undefined && backendMs !== undefined && requestMs !== 0 && (backendMs === 0 || backendMs > requestMs)) {
    return { valid: false, error: `timeouts.backendRequest ${rule.timeouts?.backendRequest} is longer than timeouts.request ${rule.timeouts?.request}` };
  }
  const policy: Pick<RoutePolicyIR, 'requestTimeoutMs' | 'retry'> = {};
  if (requestMs !== undefined) policy.requestTimeoutMs = requestMs;
  else if (backendMs !== undefined && backendMs > 0) policy.requestTimeoutMs = 0;

  const codes = rule.retry?.codes ?? [];
  for (const code of codes) if (!Number.isInteger(code) || code < 400 || code > 599) return { valid: false, error: `retry code ${code} is not a 4xx or 5xx status` };
  if (rule.retry !== undefined) {
    const retry: RetryPolicyIR = {
      on: codes.length > 0 ? ['retriable-status-codes'] : connectionFailures,
      // Envoy's own default when the spec leaves it to us.
      numRetries: rule.retry.attempts ?? 1,
      ...(codes.length > 0 ? { retriableStatusCodes: [...codes] } : {}),
      ...(backendMs !== undefined && backendMs > 0 ? { perTryTimeoutMs: backendMs } : {}),
      ...(backoffMs !== undefined && backoffMs > 0 ? { backoffBaseMs: backoffMs } : {}),
    };
    policy.retry = retry;
  } else if (backendMs !== undefined && backendMs > 0) {
    // No retries, only the one try's limit.
    policy.retry = { on: [], numRetries: 0, perTryTimeoutMs: backendMs };
  }
  return { valid: true, policy };
}
