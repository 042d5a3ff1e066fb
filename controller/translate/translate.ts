// The translator: a consistent ClusterState -> the desired data plane (IR) plus diagnostics for users. Pure and
// deterministic. Each input API has a translator of its own, in a sibling folder that imports only shared/ and the
// IR (ingress/: Ingress with its ingress-nginx layer; gateway-api/: the Gateway API, to come); this file runs them
// and joins what they give into one data plane, whose listeners the Envoy builders group by address and port.
import type { ClusterState } from './shared/kube-objects.js';
import type { TranslateOptions } from './shared/options.js';
import { type TranslationResult, translateIngresses } from './ingress/translate-ingresses.js';

export type { TranslationResult } from './ingress/translate-ingresses.js';

export function translate(state: ClusterState, options: TranslateOptions): TranslationResult {
  return translateIngresses(state, options);
}
