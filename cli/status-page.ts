// /debug/ui: a read-only status page, plain server-rendered HTML (no script, no framework): the route table
// (host -> path -> Service -> endpoints and their readiness), the connected Envoys and whether they have the
// current config, and the current diagnostics.
import type { ClusterIR, DataPlaneIR, RedirectIR, RouteIR, RouteTableIR } from '../ir/index.js';
import type { ObjectStore } from '../controller/store.js';
import type { Diagnostic } from '../controller/translate/shared/diagnostics.js';
import { serviceNameLabel } from '../controller/translate/shared/endpoints.js';
import type { EndpointSlice, Service } from '../controller/translate/shared/kube-objects.js';
import { describeMatch } from '../controller/translate/ingress/path-match.js';
import { clientsView, gatewayApiDebugView, type ClientView, type ControlPlane } from './debug-views.js';
import type { GatewayApiView } from './gateway-api-view.js';
import type { StatusCondition } from '../controller/translate/gateway-api/status-data.js';
import { namespaceOf } from '../controller/translate/shared/kinds.js';

export interface EndpointRow {
  address: string;
  port: number;
  ready: boolean;
}

export interface RouteRow {
  listener: 'http' | 'https';
  host: string;
  match: string;
  route: string;
  ingress: string | null;
  /** `Service ns/name:port`, `redirect to https`, or `404` / `503` answered by Envoy. */
  target: string;
  endpoints: EndpointRow[];
}

export interface StatusPageModel {
  generatedAt: string;
  ready: { ready: boolean; reason: string };
  generation: number;
  routes: RouteRow[];
  envoys: ClientView[];
  diagnostics: Diagnostic[];
  /** Gateways of our classes and the routes naming them. */
  gatewayApi: GatewayApiView;
}

/** Every endpoint of the Service port, ready or not (EDS carries only the ready ones). */
function endpointRows(store: ObjectStore, cluster: ClusterIR): EndpointRow[] {
  const { namespace, name, port } = cluster.service;
  const service = store.get('Service', namespace, name) as Service | undefined;
  const portName = service?.spec?.ports?.find((p) => p.port === port)?.name ?? '';
  const rows: EndpointRow[] = [];
  for (const slice of store.list('EndpointSlice') as EndpointSlice[]) {
    if (namespaceOf(slice.metadata) !== namespace || slice.metadata.labels?.[serviceNameLabel] !== name) continue;
    const slicePort = slice.ports?.find((p) => (p.name ?? '') === portName)?.port;
    if (slicePort === undefined) continue;
    for (const endpoint of slice.endpoints ?? []) {
      for (const address of endpoint.addresses) rows.push({ address, port: slicePort, ready: endpoint.conditions?.ready !== false });
    }
  }
  return rows.sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : a.port - b.port));
}

function targetOf(route: RouteIR, clusters: ReadonlyMap<string, ClusterIR>): { target: string; cluster?: ClusterIR } {
  const action = route.action;
  switch (action.kind) {
    case 'forward': {
      const cluster = clusters.get(action.cluster);
      if (!cluster) return { target: `cluster ${action.cluster}` };
      const totalWeight = action.split?.totalWeight;
      const split = (action.split?.backends ?? [])
        .map(({ cluster: name, weight }) => {
          const canary = clusters.get(name);
          return ` (canary ${weight}/${totalWeight}: ${canary ? `Service ${canary.service.namespace}/${canary.service.name}:${canary.service.port}` : `cluster ${name}`})`;
        })
        .join('');
      return { target: `Service ${cluster.service.namespace}/${cluster.service.name}:${cluster.service.port}${split}`, cluster };
    }
    case 'redirect':
      return { target: `${action.statusCode} redirect to ${describeRedirect(action)}` };
    case 'direct': {
      const location = action.headers?.find((header) => header.name === 'location')?.value;
      return { target: location === undefined ? `${action.status} from Envoy` : `${action.status} redirect to ${location}` };
    }
  }
}

export function routeRows(ir: DataPlaneIR, store: ObjectStore): RouteRow[] {
  const clusters = new Map(ir.clusters.map((c) => [c.name, c]));
  const rows: RouteRow[] = [];
  const add = (listener: 'http' | 'https', table: RouteTableIR): void => {
    for (const vhost of table.virtualHosts) {
      for (const route of vhost.routes) {
        const { target, cluster } = targetOf(route, clusters);
        rows.push({
          listener,
          host: vhost.name,
          match: [describeMatch(route.match), ...(route.headers ?? []).map((h) => `${h.name} ${h.kind === 'exact' ? `= ${JSON.stringify(h.value)}` : `~ ${h.value}`}`)].join(' + '),
          route: route.name,
          ingress: route.source ? `${route.source.kind === 'Ingress' ? '' : `${route.source.kind} `}${route.source.namespace}/${route.source.name}` : null,
          target,
          endpoints: cluster ? endpointRows(store, cluster) : [],
        });
      }
    }
  };
  // Plain-HTTP listeners first, then those terminating TLS; a table two listeners of a kind share is listed once.
  for (const protocol of ['HTTP', 'HTTPS'] as const) {
    const tables = new Set(ir.listeners.filter((l) => l.protocol === protocol && (protocol === 'HTTP' || (l.tlsServers?.length ?? 0) > 0)).map((l) => l.routeTable));
    for (const table of tables) if (table !== undefined) add(protocol === 'HTTP' ? 'http' : 'https', table);
  }
  return rows;
}

export function statusPageModel(cp: ControlPlane, ready: { ready: boolean; reason: string }, now: Date): StatusPageModel {
  const ir = cp.reconciler.ir;
  return {
    generatedAt: now.toISOString(),
    ready,
    generation: cp.reconciler.generation,
    routes: ir ? routeRows(ir, cp.store) : [],
    envoys: clientsView(cp).clients,
    diagnostics: [...cp.reconciler.diagnostics],
    gatewayApi: gatewayApiDebugView(cp),
  };
}

/** Conditions as `Type=Status (Reason)`, the ones in trouble marked; messages of the failing ones follow. */
function conditionCells(conditions: readonly StatusCondition[]): string {
  const e = escapeHtml;
  // Conflicted is the one condition whose healthy status is False.
  const healthy = (c: StatusCondition): boolean => (c.type === 'Conflicted' || c.type === 'PartiallyInvalid' ? c.status === 'False' : c.status === 'True');
  return conditions
    .map((c) => `<span class="${healthy(c) ? 'ok' : 'bad'}">${e(c.type)}=${e(c.status)}</span> (${e(c.reason)})${healthy(c) ? '' : `: ${e(c.message)}`}`)
    .join('<br>');
}

function gatewaySections(view: GatewayApiView): string {
  if (view.gateways.length === 0 && view.routes.length === 0) return '';
  const e = escapeHtml;
  const gatewayRows = view.gateways
    .map((g) => {
      const listeners = g.listeners
        .map((l) => `<code>${e(l.name)}</code> ${e(l.protocol ?? '?')} :${l.port ?? '?'}${l.hostname === null ? '' : ` ${e(l.hostname)}`}, ${l.attachedRoutes} route(s)<br>${conditionCells(l.conditions)}`)
        .join('<hr>');
      return (
        `<tr><td>${e(`${g.namespace}/${g.name}`)}</td><td>${g.addresses.map((a) => `<code>${e(a)}</code>`).join('<br>')}</td>` +
        `<td>${conditionCells(g.conditions)}</td><td>${listeners}</td><td>${g.attachedRoutes.map(e).join('<br>')}</td></tr>`
      );
    })
    .join('\n');
  const routeRows = view.routes
    .map((r) => `<tr><td>${e(`${r.kind} ${r.namespace}/${r.name}`)}</td><td>${r.parents.map((p) => `<code>${e(p.parent)}</code><br>${conditionCells(p.conditions)}`).join('<hr>')}</td></tr>`)
    .join('\n');
  return `<h2 id="gateways">Gateways (${view.gateways.length})</h2>
${view.gateways.length === 0 ? '<p>No Gateway of our classes.</p>' : `<table><thead><tr><th>Gateway</th><th>Addresses</th><th>Conditions</th><th>Listeners</th><th>Attached routes</th></tr></thead><tbody>
${gatewayRows}
</tbody></table>`}
<h2 id="routes-gateway-api">Gateway API routes (${view.routes.length})</h2>
${view.routes.length === 0 ? '<p>No route names a Gateway of ours.</p>' : `<table><thead><tr><th>Route</th><th>Parents and their conditions</th></tr></thead><tbody>
${routeRows}
</tbody></table>`}
`;
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);
}

const style = `
body{font-family:system-ui,sans-serif;margin:1.5rem;color:#1b1f24}
h1{font-size:1.4rem}h2{font-size:1.1rem;margin-top:1.8rem}
table{border-collapse:collapse;width:100%;font-size:.9rem}
th,td{border:1px solid #d0d7de;padding:.3rem .5rem;text-align:left;vertical-align:top}
th{background:#f6f8fa}
.ok{color:#1a7f37;font-weight:600}.bad{color:#cf222e;font-weight:600}
code{font-size:.85rem}
`;

export function renderStatusPage(m: StatusPageModel): string {
  const e = escapeHtml;
  const endpoints = (rows: EndpointRow[]): string =>
    rows.length === 0
      ? ''
      : rows
          .map((r) => `<code>${e(r.address)}:${r.port}</code> <span class="${r.ready ? 'ok' : 'bad'}">${r.ready ? 'ready' : 'not ready'}</span>`)
          .join('<br>');
  const routeRows = m.routes
    .map(
      (r) =>
        `<tr><td>${r.listener}</td><td>${e(r.host)}</td><td><code>${e(r.match)}</code></td><td>${e(r.target)}</td>` +
        `<td>${endpoints(r.endpoints)}</td><td>${r.ingress ? e(r.ingress) : '<em>controller</em>'}</td></tr>`,
    )
    .join('\n');
  const envoyRows = m.envoys
    .map((c) => {
      const nacks = Object.entries(c.types)
        .filter(([, t]) => t.lastNack)
        .map(([url, t]) => `${e(url.slice(url.lastIndexOf('.') + 1))}: ${e(t.lastNack!.error)}`)
        .join('<br>');
      const behind = Object.entries(c.types)
        .filter(([, t]) => t.behind > 0)
        .map(([url, t]) => `${e(url.slice(url.lastIndexOf('.') + 1))}: ${t.behind} behind`)
        .join('<br>');
      return (
        `<tr><td>${e(c.nodeId ?? '?')}</td><td>${c.protocol}</td><td>${e(c.connectedAt)}</td>` +
        `<td class="${c.inSync ? 'ok' : 'bad'}">${c.inSync ? 'in sync' : 'out of sync'}</td><td>${behind}</td><td>${nacks}</td></tr>`
      );
    })
    .join('\n');
  const diagnosticRows = m.diagnostics
    .map(
      (d) =>
        `<tr><td>${e(d.severity)}</td><td>${e(d.reason)}</td><td>${e(`${d.object.kind}/${d.object.namespace}/${d.object.name}`)}</td><td>${e(d.message)}</td></tr>`,
    )
    .join('\n');
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>envoy-ingress status</title><style>${style}</style></head>
<body>
<h1>envoy-ingress status</h1>
<p>Generated ${e(m.generatedAt)}; build generation ${m.generation};
readiness: <span class="${m.ready.ready ? 'ok' : 'bad'}">${m.ready.ready ? 'ready' : 'not ready'}</span> (${e(m.ready.reason)}).
Also: <a href="/debug/xds">/debug/xds</a>, <a href="/debug/clients">/debug/clients</a>, <a href="/debug/ir">/debug/ir</a>, <a href="/debug/gateway-api">/debug/gateway-api</a>.</p>
<h2 id="routes">Routes</h2>
${m.routes.length === 0 ? '<p>No configuration built yet.</p>' : `<table><thead><tr><th>Listener</th><th>Host</th><th>Path</th><th>Backend</th><th>Endpoints</th><th>Ingress</th></tr></thead><tbody>
${routeRows}
</tbody></table>`}
${gatewaySections(m.gatewayApi)}<h2 id="envoys">Connected Envoys (${m.envoys.length})</h2>
${m.envoys.length === 0 ? '<p>No Envoy is connected.</p>' : `<table><thead><tr><th>Node</th><th>Protocol</th><th>Connected</th><th>Config</th><th>Behind</th><th>Last NACK</th></tr></thead><tbody>
${envoyRows}
</tbody></table>`}
<h2 id="diagnostics">Diagnostics (${m.diagnostics.length})</h2>
${m.diagnostics.length === 0 ? '<p>No problems.</p>' : `<table><thead><tr><th>Severity</th><th>Reason</th><th>Object</th><th>Message</th></tr></thead><tbody>
${diagnosticRows}
</tbody></table>`}
</body></html>
`;
}

/** Where a redirect sends the client: `https` for the https redirect, else the parts it replaces. */
function describeRedirect(action: RedirectIR): string {
  if (action.scheme === 'https' && action.host === undefined && action.path?.kind !== 'replace') return 'https';
  const authority = action.host === undefined ? '' : `${action.scheme === undefined ? '' : `${action.scheme}:`}//${action.host}${action.port === undefined ? '' : `:${action.port}`}`;
  const path = action.path?.kind === 'replace' ? `${action.path.path}${action.query?.kind === 'replace' ? `?${action.query.query}` : ''}` : '';
  return `${authority}${path}`;
}
