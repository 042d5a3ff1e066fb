// `envoy-ingress explain`: where a request goes, from a manifest directory (translated here) or from a running
// controller's /debug/ir.
import { explain, formatExplanation, type ExplainInput, type ExplainRequest, type Explanation } from '../controller/explain.js';
import type { EnvoyOptions } from '../envoy/resource-types.js';
import type { TranslateOptions } from '../controller/translate/shared/options.js';
import type { IrView } from './debug-views.js';
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
    return { ir: built.translation.ir, endpoints: [...built.endpoints.values()], diagnostics: built.translation.diagnostics };
  }
  const url = `${source.controller!.replace(/\/+$/, '')}/debug/ir`;
  const res = await fetch(url, { signal: AbortSignal.timeout(10_000) });
  if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`);
  const view = (await res.json()) as IrView;
  if (view.ir === null) throw new Error(`${url}: the controller has not built a configuration yet`);
  return { ir: view.ir, endpoints: view.endpoints, diagnostics: view.diagnostics };
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
