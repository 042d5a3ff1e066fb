// Mutual TLS for the xDS server when Envoy runs in another pod: the controller presents tls.crt/tls.key and
// accepts only clients whose certificate the CA signed. The files are re-read when they change (a Kubernetes
// Secret volume swaps them atomically), so a rotated certificate applies to new connections without a restart.
import { readFileSync } from 'node:fs';
import * as grpc from '@grpc/grpc-js';

export interface XdsServerTlsFiles {
  certFile: string;
  keyFile: string;
  /** CA that signs the Envoys' client certificates. */
  caFile: string;
}

/**
 * Server credentials that require a client certificate signed by `caFile`. The files are read once now, so a
 * missing or unreadable file fails start-up with its name, then polled every `refreshIntervalMs`.
 */
export function createXdsServerCredentials(files: XdsServerTlsFiles, refreshIntervalMs = 5000): grpc.ServerCredentials {
  for (const file of [files.certFile, files.keyFile, files.caFile]) readFileSync(file);
  const provider = new grpc.experimental.FileWatcherCertificateProvider({
    certificateFile: files.certFile,
    privateKeyFile: files.keyFile,
    caCertificateFile: files.caFile,
    refreshIntervalMs,
  });
  // The provider polls only while a bound server listens to it, and stops when the server shuts down.
  return grpc.experimental.createCertificateProviderServerCredentials(provider, provider, true);
}
