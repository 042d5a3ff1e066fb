// GatewayClasses: which are ours (spec.controllerName), and their status. A class of another controller is not
// ours to report on.
import { compareStrings } from '../../../ir/index.js';
import { type ClusterState, type GatewayClass, objectsOf, refOf } from '../shared/kube-objects.js';
import { type GatewayClassStatusData, condition, generationOf } from './status-data.js';
import type { GatewayAddressing } from '../shared/options.js';
import { supportedFeaturesFor } from './supported-features.js';

export interface OurGatewayClasses {
  names: ReadonlySet<string>;
  status: GatewayClassStatusData[];
}

export function ourGatewayClasses(state: ClusterState, controllerName: string, addressing: GatewayAddressing | undefined): OurGatewayClasses {
  const ours = objectsOf(state, 'GatewayClass')
    .filter((c) => c.spec?.controllerName === controllerName)
    .sort((a, b) => compareStrings(a.metadata.name, b.metadata.name));
  const features = supportedFeaturesFor(addressing);
  return { names: new Set(ours.map((c) => c.metadata.name)), status: ours.map((c) => classStatus(c, features)) };
}

/** Accepted: every class of our controllerName is (no parametersRef is read yet, so none can be invalid). */
function classStatus(gatewayClass: GatewayClass, features: readonly string[]): GatewayClassStatusData {
  return {
    ref: refOf(gatewayClass),
    conditions: [condition('Accepted', 'True', 'Accepted', 'Accepted by envoy-ingress', generationOf(gatewayClass))],
    supportedFeatures: [...features],
  };
}
