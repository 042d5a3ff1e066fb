// Gateway API Durations (GEP-2257): one to four `<number><unit>` parts, units h, m, s, ms, e.g. `1h30m`, `500ms`, `0s`.

const durationPattern = /^([0-9]{1,5}(h|m|s|ms)){1,4}$/;
const unitMs: Readonly<Record<string, number>> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1 };

/** The duration in milliseconds, or undefined when `text` is not a GEP-2257 Duration. */
export function parseGatewayDuration(text: string): number | undefined {
  if (!durationPattern.test(text)) return undefined;
  let total = 0;
  for (const part of text.matchAll(/([0-9]+)(ms|h|m|s)/g)) total += Number(part[1]) * (unitMs[part[2] as string] as number);
  return total;
}
