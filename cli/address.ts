/** Prefix of a Unix domain socket address (`unix:/run/envoy-ingress/xds.sock`), kept in `host` with port 0. */
export const unixPrefix = 'unix:';

/** Parses `host:port`, `[v6]:port` or `unix:/absolute/path`; throws a message fit for a CLI user. */
export function parseHostPort(value: string, flag: string): { host: string; port: number } {
  if (value.startsWith(unixPrefix)) {
    if (!value.slice(unixPrefix.length).startsWith('/')) throw new Error(`${flag} must be unix:/ABSOLUTE/PATH, got ${JSON.stringify(value)}`);
    return { host: value, port: 0 };
  }
  const m = /^(?:\[([^\]]+)\]|([^:]+)):(\d+)$/.exec(value);
  const host = m?.[1] ?? m?.[2];
  const port = Number(m?.[3]);
  if (!m || host === undefined || !Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`${flag} must be HOST:PORT (e.g. 127.0.0.1:18000), got ${JSON.stringify(value)}`);
  }
  return { host, port };
}

export function parsePort(value: string, flag: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535) throw new Error(`${flag} must be a port number 0-65535, got ${JSON.stringify(value)}`);
  return port;
}
