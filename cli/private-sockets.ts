// Where `run --envoy` puts xDS and Envoy's admin interface when no address is asked for: Unix sockets in a fresh
// directory only this user can enter (mkdtemp makes it 0700), so nothing reaches them over TCP, in particular not
// Envoy itself on behalf of a backend whose name resolves to 127.0.0.1 (docs/guides/security.md).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface PrivateSockets {
  /** For --xds-address. */
  xdsAddress: string;
  /** For --envoy-admin-address. */
  adminAddress: string;
  remove(): void;
}

export function createPrivateSockets(): PrivateSockets {
  // Short: a socket path is limited to 107 bytes.
  const dir = mkdtempSync(path.join(tmpdir(), 'envoy-ingress-'));
  return {
    xdsAddress: `unix:${path.join(dir, 'xds.sock')}`,
    adminAddress: `unix:${path.join(dir, 'admin.sock')}`,
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
