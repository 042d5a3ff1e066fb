// Whether a /debug request's Host header names this server as an operator reaches it: through `kubectl
// port-forward` (or on the host itself) that is localhost or a loopback address, else the address the server was
// configured with. A web page the operator opens can make their browser send requests to the forwarded port under
// a name of its own that resolves to 127.0.0.1 (DNS rebinding) and read the answers as same-origin: such requests
// carry that name in Host, so they are refused. The probes and /metrics are not checked (the kubelet and
// Prometheus send the pod IP, and they reveal nothing of the configuration).
import { isIP } from 'node:net';

/** The host part of a Host header (no port; an IPv6 literal without its brackets), lowercased. */
function hostOf(header: string): string {
  const h = header.trim().toLowerCase();
  if (h.startsWith('[')) return h.slice(1, h.indexOf(']') === -1 ? undefined : h.indexOf(']'));
  const colon = h.lastIndexOf(':');
  return colon === -1 ? h : h.slice(0, colon);
}

function isLoopback(host: string): boolean {
  if (host === 'localhost' || host === '::1') return true;
  return isIP(host) === 4 && host.startsWith('127.');
}

/** `configuredHost`: the address the server listens on (a wildcard address allows no extra name). */
export function debugHostAllowed(hostHeader: string | undefined, configuredHost: string): boolean {
  if (hostHeader === undefined || hostHeader.trim() === '') return false;
  const host = hostOf(hostHeader);
  if (isLoopback(host)) return true;
  const configured = configuredHost.toLowerCase().replace(/^\[|\]$/g, '');
  return configured !== '0.0.0.0' && configured !== '::' && host === configured;
}
