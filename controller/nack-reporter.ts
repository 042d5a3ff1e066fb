// When Envoy rejects config (NACK), say which Kubernetes objects it was built from. The ADS server already
// keeps the last good config and does not resend the rejected version.
import type { AdsServer } from '../xds/ads-server.js';
import type { NackEvent } from '../xds/stream-session.js';
import { objectsBehind } from './objects-behind.js';
import type { Reconciler } from './reconciler.js';
import type { SourceRef } from '../ir/index.js';
import { refKey } from './translate/shared/kube-objects.js';

export function reportNacks(
  server: AdsServer,
  reconciler: Reconciler,
  log: { error(obj: object, msg: string): void },
  onNack?: (event: NackEvent, objects: SourceRef[]) => void,
): void {
  server.on('nack', (event) => {
    const ir = reconciler.ir;
    const objects = ir ? objectsBehind(ir, event.kind, event.resourceNames) : [];
    log.error(
      { node: event.node?.id, type: event.kind, objects: objects.map(refKey), error: event.message },
      'Envoy rejected config built from these objects; it keeps its last good config',
    );
    onNack?.(event, objects);
  });
}
