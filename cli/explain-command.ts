// `envoy-ingress explain`: where a request goes, from a manifest directory (translated here) or from a running
// controller's /debug/ir.
import { explain, formatExplanation, type ExplainInput, type ExplainRequest, type Explanation } from '../controller/explain.js';
import type { EnvoyOptions } from '../envoy/resource-types.js';
import type { TranslateOptions } from '../controller/translate/shared/options.js';
import type { IrView } from './debug-views.js';
import { gatewayExplainContext } from '../controller/explain-gateway-context.js';
import { loadAndBuild } from './render.js';

export interface ExplainSource {
  manifests?: string;
  /** Base URL of a controller's admin server, e.g. http://127.0.0.1:9102 */
  controller?: string;
}

export async function loadExplainInput(source: ExplainSource, options: { translate: TranslateOptions; envoy: EnvoyOptions }): Promise<ExplainInput> {
  if ((source.manifests === undefined) === (source.controller === undefined)) {
    throw new Error('give exactly one of --manifests DIR and --controller URL');
  }
  if (source.manifests !== undefined) {
    const built = await loadAndBuild(source.manifests, options);
    return { ir: built.translation.ir, endpoints: [...built.endpoints.values()], diagnostics: built.translation.diagnostics, ...gatewayExplainContext(built.state) };
  }
  const url = `${source.controller!.replace(/\/+$/, '')}/debug/ir`;
  const res = await fetch(url, { signal: AbortSignal.timeout(10_000) });
  if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`);
  const view = (await res.json()) as IrView;
  if (view.ir === null) throw new Error(`${url}: the controller has not built a configuration yet`);
  return {
    ir: view.ir,
    endpoints: view.endpoints,
    diagnostics: view.diagnostics,
    ...(view.gateways !== undefined ? { gateways: view.gateways } : {}),
    ...(view.ruleNames !== undefined ? { ruleNames: view.ruleNames } : {}),
  };
}

export async function runExplain(
  request: ExplainRequest,
  source: ExplainSource,
  options: { translate: TranslateOptions; envoy: EnvoyOptions },
  format: 'text' | 'json',
): Promise<{ output: string; explanation: Explanation }> {
  const explanation = explain(await loadExplainInput(source, options), request);
  return { output: format === 'json' ? `${JSON.stringify(explanation, null, 2)}\n` : formatExplanation(explanation), explanation };
}

/** The request of `explain`'s flags; throws on a malformed --header, --port or --gateway. */
export function explainRequestOf(flags: {
  host: string;
  path: string;
  https?: boolean;
  sni?: string;
  method?: string;
  header?: string[];
  port?: string;
  address?: string;
  gateway?: string;
  listener?: string;
}): ExplainRequest {
  const headers: Record<string, string> = {};
  for (const h of flags.header ?? []) {
    const colon = h.indexOf(':');
    if (colon <= 0) throw new Error(`--header ${h}: write NAME:VALUE`);
    headers[h.slice(0, colon).trim().toLowerCase()] = h.slice(colon + 1).trim();
  }
  let port: number | undefined;
  if (flags.port !== undefined) {
    port = Number(flags.port);
    if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error(`--port ${flags.port}: not a port`);
  }
  let gateway: ExplainRequest['gateway'];
  if (flags.gateway !== undefined) {
    const [namespace, name, ...rest] = flags.gateway.split('/');
    if (!namespace || !name || rest.length > 0) throw new Error(`--gateway ${flags.gateway}: write NAMESPACE/NAME`);
    gateway = { namespace, name, ...(flags.listener !== undefined ? { listener: flags.listener } : {}) };
  } else if (flags.listener !== undefined) throw new Error('--listener needs --gateway');
  if (flags.address !== undefined && port === undefined && gateway === undefined) throw new Error('--address needs --port or --gateway');
  return {
    host: flags.host,
    path: flags.path,
    scheme: flags.https ? 'https' : 'http',
    ...(flags.sni !== undefined ? { sni: flags.sni } : {}),
    ...(flags.method !== undefined && flags.method.toUpperCase() !== 'GET' ? { method: flags.method } : {}),
    ...(Object.keys(headers).length ? { headers } : {}),
    ...(port !== undefined ? { port } : {}),
    ...(flags.address !== undefined ? { address: flags.address } : {}),
    ...(gateway !== undefined ? { gateway } : {}),
  };
}
