// migrate-check's view of the ingress-nginx ConfigMap: every key it sets, honoured (with what it maps to),
// invalid (ingress-nginx's default is used) or ignored (with the reason). Pure.
import type { Diagnostic } from '../../shared/diagnostics.js';
import type { ConfigMap } from '../../shared/kube-objects.js';
import { nginxConfigMapKey } from './nginx-configmap-keys.js';
import { readNginxConfigMap } from './nginx-configmap.js';

export type ConfigMapKeyStatus = 'honoured' | 'invalid' | 'ignored';

export interface ConfigMapKeyFinding {
  key: string;
  value: string;
  status: ConfigMapKeyStatus;
  note: string;
}

export interface ConfigMapReport {
  namespace: string;
  name: string;
  /** False when --nginx-configmap names a ConfigMap that does not exist (ingress-nginx's defaults apply). */
  found: boolean;
  keys: ConfigMapKeyFinding[];
  /** Something would behave differently: a key ignored or invalid. */
  changes: boolean;
}

export function configMapReport(ref: { namespace: string; name: string }, configMap: ConfigMap | undefined): ConfigMapReport {
  const diagnostics: Diagnostic[] = [];
  readNginxConfigMap(configMap, ref, diagnostics);
  const keys = Object.entries(configMap?.data ?? {})
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, value]): ConfigMapKeyFinding => {
      const entry = nginxConfigMapKey(key);
      const problem = diagnostics.find((d) => d.message.startsWith(`key ${key} `));
      if (entry.status === 'honoured' && problem !== undefined) return { key, value, status: 'invalid', note: problem.message };
      return { key, value, status: entry.status, note: entry.note };
    });
  return { namespace: ref.namespace, name: ref.name, found: configMap !== undefined, keys, changes: keys.some((k) => k.status !== 'honoured') };
}

/** Text lines: a heading, one row per key, and a count. */
export function formatConfigMapReport(report: ConfigMapReport): string[] {
  const lines = [`ConfigMap ${report.namespace}/${report.name}${report.found ? '' : ': not found, ingress-nginx\'s defaults apply'}`];
  const rows = [['KEY', 'STATUS', 'MAPS TO / REASON'], ...report.keys.map((k) => [k.key, k.status, k.note])];
  const widths = [0, 1].map((i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  if (report.keys.length > 0) for (const r of rows) lines.push(`  ${(r[0] ?? '').padEnd(widths[0] ?? 0)}  ${(r[1] ?? '').padEnd(widths[1] ?? 0)}  ${r[2] ?? ''}`.trimEnd());
  const count = (status: ConfigMapKeyStatus): number => report.keys.filter((k) => k.status === status).length;
  lines.push(`${report.keys.length} ConfigMap ${report.keys.length === 1 ? 'key' : 'keys'}: ${count('honoured')} honoured, ${count('invalid')} invalid, ${count('ignored')} ignored`);
  return lines;
}
