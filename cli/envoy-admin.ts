// POST to and GET from Envoy's admin interface at an http:// URL or, where the admin listens on a Unix socket (the
// edge-nodes variant: nothing on the node's loopback), at `unix:/path`.
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

/** GET from Envoy's admin interface (http:// URL or `unix:/path`): the body of a 2xx answer. */
export async function getEnvoyAdmin(adminUrl: string, path: string, timeoutMs = 2000): Promise<string> {
  if (!adminUrl.startsWith('unix:')) {
    const res = await fetch(`${adminUrl.replace(/\/+$/, '')}${path}`, { signal: AbortSignal.timeout(timeoutMs) });
    const body = await res.text();
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    return body;
  }
  return new Promise<string>((resolve, reject) => {
    const req = request({ socketPath: adminUrl.slice('unix:'.length), path, method: 'GET', timeout: timeoutMs }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.once('end', () =>
        res.statusCode !== undefined && res.statusCode < 300 ? resolve(Buffer.concat(chunks).toString('utf8')) : reject(new Error(`HTTP ${res.statusCode}`)),
      );
      res.once('error', reject);
    });
    req.once('timeout', () => req.destroy(new Error('timeout')));
    req.once('error', reject);
    req.end();
  });
}
