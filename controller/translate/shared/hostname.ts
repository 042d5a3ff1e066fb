// Ingress host names: validation and normalisation.

export type ParsedHost = { valid: true; host: string } | { valid: false; error: string };

/** A DNS-1123 subdomain (as Kubernetes validates Ingress hosts), already lower-cased. */
const dnsSubdomain = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/**
 * Lower-cases and validates a host: an exact DNS name (`foo.example.com`) or a wildcard whose `*` is the whole
 * first label (`*.example.com`). That a wildcard matches exactly one label is enforced by the envoy layer.
 */
export function parseHost(host: string): ParsedHost {
  const lower = host.toLowerCase();
  const name = lower.startsWith('*.') ? lower.slice(2) : lower;
  if (name.length === 0 || name.length > 253 || !dnsSubdomain.test(name)) {
    return {
      valid: false,
      error: `host ${JSON.stringify(host)} is neither a DNS name nor a wildcard of the form "*.example.com"`,
    };
  }
  if (name.split('.').some((label) => label.length > 63)) {
    return { valid: false, error: `host ${JSON.stringify(host)} has a label longer than 63 characters` };
  }
  return { valid: true, host: lower };
}
