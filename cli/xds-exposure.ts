// Plaintext xDS hands every TLS private key (SDS) to whoever connects, so it may only listen where nothing but
// the pod itself reaches it: a loopback address (in a pod with its own network namespace) or a Unix socket.
import { isIP } from 'node:net';

/** True for 127.0.0.0/8, ::1 and `localhost`. */
export function isLoopbackHost(host: string): boolean {
  if (host === 'localhost' || host === '::1') return true;
  return isIP(host) === 4 && host.startsWith('127.');
}

/** The reason `run` refuses to start, or undefined when the xDS listen address is acceptable. */
export function exposedPlaintextXdsRefusal(o: { host: string; tls: boolean; allowInsecure: boolean }): string | undefined {
  if (o.tls || o.allowInsecure || isLoopbackHost(o.host) || o.host.startsWith('unix:')) return undefined;
  return (
    `--xds-address ${o.host} is not loopback and xDS is plaintext: anyone who reaches it gets every TLS private key. ` +
    'Use --xds-tls-cert/--xds-tls-key/--xds-tls-ca with --xds-tls-client-san, or --xds-insecure-plaintext if the network is private by other means'
  );
}
