// Whether RE2 (what Envoy's safe_regex runs) takes a route's regex: one Envoy refuses would make it refuse the whole
// route configuration. re2-wasm's raw compiled object is used directly (its JS wrapper rewrites JavaScript syntax
// first, accepting text RE2 refuses); it lives outside the GC heap, hence delete().
import { createRequire } from 'node:module';
import { estimateRe2ProgramSize, maxUserRegexProgramSize } from '../shared/re2-program-size.js';

interface WrappedRe2 {
  ok(): boolean;
  error(): string;
  delete(): void;
}
const { WrappedRE2 } = createRequire(import.meta.url)('re2-wasm/build/wasm/re2.js') as {
  WrappedRE2: new (pattern: string, ignoreCase: boolean, multiline: boolean, dotAll: boolean) => WrappedRe2;
};

/** undefined when Envoy will take `pattern`, else why not. */
export function regexError(pattern: string): string | undefined {
  const size = estimateRe2ProgramSize(pattern);
  if (size > maxUserRegexProgramSize) return `regex ${JSON.stringify(pattern)} is too large (RE2 program size ${size} > ${maxUserRegexProgramSize})`;
  const re = new WrappedRE2(pattern, false, false, false);
  try {
    return re.ok() ? undefined : `regex ${JSON.stringify(pattern)} is not valid RE2: ${re.error()}`;
  } finally {
    re.delete();
  }
}
