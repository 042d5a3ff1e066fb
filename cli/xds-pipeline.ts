// What both modes share: store -> reconciler -> snapshot cache -> ADS server listening, with NACKs reported.
import type { ServerCredentials } from '@grpc/grpc-js';
import { reportNacks } from '../controller/nack-reporter.js';
import { Reconciler } from '../controller/reconciler.js';
import { ObjectStore } from '../controller/store.js';
import type { TranslateOptions } from '../controller/translate/shared/options.js';
import type { EnvoyOptions } from '../envoy/resource-types.js';
import { BasicAuthService } from '../controller/auth/authorization-service.js';
import { BasicAuthUsers } from '../controller/auth/basic-auth-users.js';
import { AdsServer } from '../xds/ads-server.js';
import { requireClientSan } from '../xds/client-identity.js';
import { SnapshotCache } from '../xds/snapshot-cache.js';
import type { Logger } from './logger.js';

export interface XdsPipelineOptions {
  xdsHost: string;
  xdsPort: number;
  /** TLS for the xDS server (see xds-server-credentials.ts); default plaintext, for a loopback-only server. */
  xdsCredentials?: ServerCredentials;
  /** With xdsCredentials: a client certificate must name one of these (DNS or URI subjectAltName). */
  xdsClientSans?: readonly string[];
  translate: TranslateOptions;
  envoy: EnvoyOptions;
  log: Logger;
}

export interface XdsPipeline {
  store: ObjectStore;
  cache: SnapshotCache;
  reconciler: Reconciler;
  server: AdsServer;
  xdsPort: number;
  /** Envoy's basic-auth checks (ext_authz over gRPC), served on the xDS server. */
  basicAuth: BasicAuthService;
}

export async function startXdsPipeline(o: XdsPipelineOptions): Promise<XdsPipeline> {
  const store = new ObjectStore();
  const cache = new SnapshotCache();
  const reconciler = new Reconciler(store, cache, { translate: o.translate, envoy: o.envoy }, o.log);
  const authorizeClient = o.xdsClientSans !== undefined ? requireClientSan(o.xdsClientSans) : undefined;
  const server = new AdsServer(cache, { log: o.log, ...(authorizeClient !== undefined ? { authorizeClient } : {}) });
  // ingress-nginx basic auth: Envoy asks on the connection it has for xDS (envoy/basic-auth.ts); the users are
  // those of the last build.
  const users = new BasicAuthUsers();
  reconciler.on('built', () => users.update(reconciler.ir?.basicAuthUsers));
  // The same clients as xDS may ask (split variant: the Envoys' SAN).
  const basicAuth = new BasicAuthService(users, authorizeClient !== undefined ? { authorizeClient } : {});
  basicAuth.addTo(server.grpcServer);
  const xdsPort = await server.listen(o.xdsHost, o.xdsPort, ...(o.xdsCredentials ? [o.xdsCredentials] : []));
  o.log.info({ address: o.xdsHost, port: xdsPort }, 'xDS server listening');
  reportNacks(server, reconciler, o.log);
  return { store, cache, reconciler, server, xdsPort, basicAuth };
}
