// What the demo shows, once per line: a curl command to copy, and the same request made from node with what it
// must answer, so `DEMO_CHECK=1` proves every printed line works. The curl text is built from the same values
// as the request, so the two cannot drift apart.
import { Agent as HttpAgent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';

export interface DemoAddresses {
  /** Where clients connect (the address Envoy listens on, as reachable from here). */
  connectHost: string;
  httpPort: number;
  httpsPort: number;
  /** Envoy's admin interface (a Unix socket). */
  adminSocket: string;
  /** Path of the demo CA certificate (for curl) and its PEM (for node). */
  caFile: string;
  caPem: string;
}

export interface DemoCheck {
  title: string;
  curl: string;
  /** Makes the request(s); resolves to undefined when the answer is right, else to what was wrong. */
  run(): Promise<string | undefined>;
}

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

interface Request {
  tls?: { servername: string; ca: string };
  /** Instead of connectHost and port. */
  socketPath?: string;
  port: number;
  host: string;
  path: string;
  agent?: HttpAgent;
}

const timeoutMs = 10_000;

function send(connectHost: string, r: Request): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const where = r.socketPath !== undefined ? { socketPath: r.socketPath } : { host: connectHost, port: r.port };
    const options = { ...where, path: r.path, headers: { host: r.host }, timeout: timeoutMs };
    const onResponse = (res: import('node:http').IncomingMessage): void => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString() });
      });
      res.on('error', reject);
    };
    const req = r.tls
      ? httpsRequest({ ...options, servername: r.tls.servername, ca: r.tls.ca, agent: false }, onResponse)
      : httpRequest({ ...options, agent: r.agent ?? false }, onResponse);
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end();
  });
}

function jsonOf(answer: Answer): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(answer.body);
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** Quotes for a POSIX shell: single quotes, with embedded ones escaped. */
function shellQuote(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replaceAll("'", `'\\''`)}'`;
}

/** Checks that the answer came from `service` with `status`, and optionally that the path arrived unchanged. */
function expectService(answer: Answer, service: string, status = 200, path?: string): string | undefined {
  const served = answer.headers['x-echo-service'];
  if (answer.status !== status || served !== service) {
    const from = String(served ?? 'no echo backend');
    return `expected ${status} from ${service}, got ${answer.status} from ${from}: ${answer.body.slice(0, 200)}`;
  }
  const echoedPath = jsonOf(answer)?.['path'];
  if (path === undefined || echoedPath === path) return undefined;
  return `backend saw path ${JSON.stringify(echoedPath)}, expected ${JSON.stringify(path)}`;
}

export function demoChecks(a: DemoAddresses): DemoCheck[] {
  const http = `http://${a.connectHost}:${a.httpPort}`;
  const plain = (host: string, path: string, flags = ''): { curl: string; send: () => Promise<Answer> } => ({
    curl: `curl ${flags}-H ${shellQuote(`Host: ${host}`)} ${shellQuote(`${http}${path}`)}`,
    send: () => send(a.connectHost, { port: a.httpPort, host, path }),
  });
  const checks: DemoCheck[] = [];

  const shopRoot = plain('shop.localtest.me', '/');
  checks.push({
    title: 'shop.localtest.me/ goes to the web Service',
    curl: shopRoot.curl,
    run: async () => expectService(await shopRoot.send(), 'web'),
  });

  const shopApi = plain('shop.localtest.me', '/api/items?id=42');
  checks.push({
    title: 'shop.localtest.me/api goes to the api Service, path and query unchanged',
    curl: shopApi.curl,
    run: async () => expectService(await shopApi.send(), 'api', 200, '/api/items?id=42'),
  });

  // Several URLs in one curl reuse one connection, so one Envoy worker round-robins them over both pods.
  const repeats = 4;
  checks.push({
    title: `web has two pods: ${repeats} requests on one connection reach both (round robin)`,
    curl: `curl -s -H ${shellQuote('Host: shop.localtest.me')} ${Array(repeats).fill(`${http}/`).join(' ')}`,
    run: async () => {
      const agent = new HttpAgent({ keepAlive: true, maxSockets: 1 });
      try {
        const pods = new Set<string>();
        for (let i = 0; i < repeats; i += 1) {
          const answer = await send(a.connectHost, { port: a.httpPort, host: 'shop.localtest.me', path: '/', agent });
          const wrong = expectService(answer, 'web');
          if (wrong !== undefined) return wrong;
          pods.add(String(answer.headers['x-echo-pod']));
        }
        return pods.size === 2 ? undefined : `expected both web pods, saw ${[...pods].join(', ')}`;
      } finally {
        agent.destroy();
      }
    },
  });

  const blog = plain('blog.localtest.me', '/posts/hello-world');
  checks.push({
    title: 'blog.localtest.me goes to the blog Service',
    curl: blog.curl,
    run: async () => expectService(await blog.send(), 'blog', 200, '/posts/hello-world'),
  });

  const secureHost = 'secure.localtest.me';
  checks.push({
    title: `${secureHost} over HTTPS: SNI picks the generated certificate, verified against the demo CA`,
    curl:
      `curl --cacert ${shellQuote(a.caFile)} --resolve ${secureHost}:${a.httpsPort}:${a.connectHost} ` +
      `https://${secureHost}:${a.httpsPort}/`,
    run: async () => {
      const answer = await send(a.connectHost, {
        port: a.httpsPort,
        host: `${secureHost}:${a.httpsPort}`,
        path: '/',
        tls: { servername: secureHost, ca: a.caPem },
      });
      return expectService(answer, 'secure');
    },
  });

  const redirect = plain(secureHost, '/account?tab=orders', '-i ');
  const location = `https://${secureHost}:${a.httpsPort}/account?tab=orders`;
  checks.push({
    title: `${secureHost} over plain HTTP redirects to HTTPS (301)`,
    curl: redirect.curl,
    run: async () => {
      const answer = await redirect.send();
      if (answer.status === 301 && answer.headers.location === location) return undefined;
      return `expected 301 to ${location}, got ${answer.status} ${String(answer.headers.location ?? '(no location)')}`;
    },
  });

  const unknown = plain('nobody.localtest.me', '/', '-i ');
  checks.push({
    title: 'a host no rule matches goes to the default backend, the fallback Service, which answers 404',
    curl: unknown.curl,
    run: async () => expectService(await unknown.send(), 'fallback', 404),
  });

  const routesDump = `/config_dump?resource=dynamic_route_configs`;
  const jqDomains = '.configs[].route_config | .name + ": " + ([.virtual_hosts[].domains[]] | join(" "))';
  const admin = 'http://localhost';
  checks.push({
    title: 'debugging: the virtual hosts Envoy received over xDS (its admin /config_dump; needs jq)',
    curl: `curl -s --unix-socket ${shellQuote(a.adminSocket)} ${shellQuote(`${admin}${routesDump}`)} | jq -r ${shellQuote(jqDomains)}`,
    run: async () => {
      const answer = await send(a.connectHost, { socketPath: a.adminSocket, port: 0, host: 'localhost', path: routesDump });
      const configs = jsonOf(answer)?.['configs'];
      type RouteConfigDump = { route_config?: { virtual_hosts?: { domains?: string[] }[] } };
      const domains = new Set(
        ((Array.isArray(configs) ? configs : []) as RouteConfigDump[]).flatMap((c) =>
          (c.route_config?.virtual_hosts ?? []).flatMap((vh) => vh.domains ?? []),
        ),
      );
      const expected = ['shop.localtest.me', 'blog.localtest.me', secureHost];
      const absent = expected.filter((d) => !domains.has(d));
      return absent.length === 0 ? undefined : `status ${answer.status}; route configs lack ${absent.join(', ')}`;
    },
  });
  return checks;
}
