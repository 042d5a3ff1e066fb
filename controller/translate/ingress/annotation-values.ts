// Parsers for annotation values. Each returns the parsed value or undefined when the text is not of the accepted
// form; the caller reports it (naming the annotation and the form) and falls back to the default.
import type { CidrIR, HashPolicyIR, HeaderIR } from '../../../ir/index.js';
import { parseCidr } from '../shared/cidr.js';

/** Longest duration accepted: a year, far beyond any sensible proxy timeout, well within Envoy's Duration. */
const maxDurationMs = 365 * 24 * 3600 * 1000;
const durationUnitsMs: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** `0` (no timeout) or a number with a unit: `500ms`, `30s`, `1.5s`, `2m`, `1h`. Milliseconds, whole. */
export function parseDurationMs(text: string): number | undefined {
  const value = text.trim();
  if (value === '0') return 0;
  const m = /^(\d{1,12}(?:\.\d{1,9})?)(ms|s|m|h)$/.exec(value);
  if (m === null) return undefined;
  const ms = Number(m[1]) * (durationUnitsMs[m[2] as string] as number);
  if (!Number.isFinite(ms) || ms > maxDurationMs) return undefined;
  const whole = Math.round(ms);
  // `0.1ms` would round to "no timeout", the opposite of what was asked.
  return whole === 0 && ms > 0 ? undefined : whole;
}

/** A whole number in [min, max], decimal digits only. */
export function parseInteger(text: string, min: number, max: number): number | undefined {
  const value = text.trim();
  if (!/^\d{1,10}$/.test(value)) return undefined;
  const n = Number(value);
  return n >= min && n <= max ? n : undefined;
}

const sizeUnits: Record<string, number> = { '': 1, k: 1024, ki: 1024, m: 1024 ** 2, mi: 1024 ** 2, g: 1024 ** 3, gi: 1024 ** 3 };
/** Envoy's buffer limit is a uint32. */
const maxSizeBytes = 2 ** 32 - 1;

/** Bytes: `1048576`, `512k`, `8m`, `1g` (also `Ki`, `Mi`, `Gi`; all powers of 1024), at least 1. */
export function parseSizeBytes(text: string): number | undefined {
  const m = /^(\d{1,10})([kmg]i?)?$/i.exec(text.trim());
  if (m === null) return undefined;
  const bytes = Number(m[1]) * (sizeUnits[(m[2] ?? '').toLowerCase()] as number);
  return bytes >= 1 && bytes <= maxSizeBytes ? bytes : undefined;
}

/** Items of a comma- or whitespace-separated list, empty items dropped. */
export function splitList(text: string): string[] {
  return text.split(/[\s,]+/).filter((item) => item !== '');
}

/** An HTTP header name (RFC 9110 token), lower-cased. */
export function parseHeaderName(text: string): string | undefined {
  const name = text.trim();
  return /^[!#$%&'*+\-.^_`|~0-9A-Za-z]{1,256}$/.test(name) ? name.toLowerCase() : undefined;
}

/** Envoy refuses to let route configuration change pseudo-headers and `host`. */
function isModifiableHeader(name: string): boolean {
  return name !== 'host';
}

/** `name` lines: `X-Env: prod` one per line. A header value is visible ASCII and spaces (no control chars). */
export function parseHeaderLines(text: string): HeaderIR[] | undefined {
  const headers: HeaderIR[] = [];
  for (const line of text.split(/\r?\n/)) {
    if (line.trim() === '') continue;
    const colon = line.indexOf(':');
    if (colon <= 0) return undefined;
    const name = parseHeaderName(line.slice(0, colon));
    const value = line.slice(colon + 1).trim();
    if (name === undefined || !isModifiableHeader(name) || !/^[\x20-\x7e]{0,4096}$/.test(value)) return undefined;
    headers.push({ name, value });
  }
  return headers.length > 0 ? headers : undefined;
}

/** Comma-separated header names. */
export function parseHeaderNames(text: string): string[] | undefined {
  const names: string[] = [];
  for (const item of splitList(text)) {
    const name = parseHeaderName(item);
    if (name === undefined || !isModifiableHeader(name)) return undefined;
    names.push(name);
  }
  return names.length > 0 ? names : undefined;
}

export { parseCidr };

/** A list of CIDRs; undefined when any item is not one, or there is none. */
export function parseCidrList(text: string): CidrIR[] | undefined {
  const cidrs = splitList(text).map(parseCidr);
  if (cidrs.length === 0 || cidrs.some((c) => c === undefined)) return undefined;
  return cidrs as CidrIR[];
}

/** `header:X-User`, `cookie:session` or `source-ip`. */
export function parseHashBy(text: string): HashPolicyIR | undefined {
  const value = text.trim();
  if (value === 'source-ip') return { kind: 'source-ip' };
  const m = /^(header|cookie):(.+)$/.exec(value);
  if (m === null) return undefined;
  const name = parseHeaderName(m[2] as string);
  if (name === undefined) return undefined;
  // Cookie names are case-sensitive: keep the one given.
  return m[1] === 'header' ? { kind: 'header', name } : { kind: 'cookie', name: (m[2] as string).trim() };
}

/** `*`, `https://app.example.com[:port]` or `https://*.example.com` (one label). */
export function parseOrigin(text: string): string | undefined {
  if (text === '*') return text;
  return /^https?:\/\/(\*\.)?[A-Za-z0-9]([A-Za-z0-9-]{0,62}\.)*[A-Za-z0-9-]{1,63}(:\d{1,5})?$/.test(text)
    ? text.toLowerCase()
    : undefined;
}

/** A DNS name for SNI: labels of letters, digits and hyphens. */
export function parseServerName(text: string): string | undefined {
  const name = text.trim().toLowerCase();
  return name.length <= 253 && /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/.test(name)
    ? name
    : undefined;
}

/** A path replacement: starts with `/`, no query, fragment, backslash, whitespace or control characters. */
export function parsePathReplacement(text: string): string | undefined {
  return /^\/[^\s?#\\\x00-\x1f\x7f]{0,1023}$/.test(text) ? text : undefined;
}
