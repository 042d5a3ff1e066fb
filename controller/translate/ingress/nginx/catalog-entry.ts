// One entry of the ingress-nginx annotation catalog (catalog.ts, catalog-unmapped.ts).

/**
 * supported: same behaviour as ingress-nginx documents; supported-with-difference: mapped, with a documented
 * difference; unsupported: ignored (UnsupportedNginxAnnotation); refused: never honoured (NginxSnippetRefused).
 */
export type NginxAnnotationStatus = 'supported' | 'supported-with-difference' | 'unsupported' | 'refused';

export interface NginxAnnotationEntry {
  status: NginxAnnotationStatus;
  /** Our annotation(s) or feature it maps onto. */
  equivalent?: string;
  /** For supported-with-difference: what behaves differently. For unsupported/refused: why, or what to use. */
  note?: string;
  /**
   * Each difference an ingress-nginx parity table row shows (test/nginx-parity/*.yaml), by the id the rows cite:
   * what a request gets here and what ingress-nginx answers instead. migrate-check names them all.
   */
  differences?: Readonly<Record<string, string>>;
}
