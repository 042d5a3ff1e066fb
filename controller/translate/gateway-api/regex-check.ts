// Whether RE2 (what Envoy's safe_regex runs) takes a route's regex: one Envoy refuses would make it refuse the whole
// route configuration. The same check, size cap and cache the Ingress translator's regex paths use.
import { estimateRe2ProgramSize, maxUserRegexProgramSize } from '../shared/re2-program-size.js';
import { compileRe2 } from '../shared/re2.js';

/** undefined when Envoy will take `pattern`, else why not. */
export function regexError(pattern: string): string | undefined {
  const size = estimateRe2ProgramSize(pattern);
  if (size > maxUserRegexProgramSize) return `regex ${JSON.stringify(pattern)} is too large (RE2 program size ${size} > ${maxUserRegexProgramSize})`;
  const compiled = compileRe2(pattern);
  return compiled.ok ? undefined : `regex ${JSON.stringify(pattern)} is not valid RE2: ${compiled.error}`;
}
