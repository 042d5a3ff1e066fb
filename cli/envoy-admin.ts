// POST to Envoy's admin interface at an http:// URL or, where the admin listens on a Unix socket (the edge-nodes
// variant: nothing on the node's loopback), at `unix:/path`.
import { request } from 'node:http';

export async function postEnvoyAdmin(adminUrl: string, path: string, timeoutMs = 2000): Promise<void> {
  if (!adminUrl.startsWith('unix:')) {
    const res = await fetch(`${adminUrl.replace(/\/+$/, '')}${path}`, { method: 'POST', signal: AbortSignal.timeout(timeoutMs) });
    await res.arrayBuffer();
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    return;
  }
  await new Promise<void>((resolve, reject) => {
    const req = request({ socketPath: adminUrl.slice('unix:'.length), path, method: 'POST', timeout: timeoutMs }, (res) => {
      res.resume();
      res.once('end', () => (res.statusCode !== undefined && res.statusCode < 300 ? resolve() : reject(new Error(`HTTP ${res.statusCode}`))));
    });
    req.once('timeout', () => req.destroy(new Error('timeout')));
    req.once('error', reject);
    req.end();
  });
}
