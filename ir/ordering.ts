// Plain code-unit string order (never locale-dependent), so equal inputs give byte-equal output everywhere.
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
