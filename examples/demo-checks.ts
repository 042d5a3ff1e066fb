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
  /** Request headers besides Host. */
  headers?: Record<string, string>;
  agent?: HttpAgent;
}

const timeoutMs = 10_000;

function send(connectHost: string, r: Request): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const where = r.socketPath !== undefined ? { socketPath: r.socketPath } : { host: connectHost, port: r.port };
    const options = { ...where, path: r.path, headers: { ...r.headers, host: r.host }, timeout: timeoutMs };
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

  // The Gateway API example (gateway-api.yaml): an HTTPRoute on a Gateway listener that shares the Ingress port.
  const gatewayHost = 'gateway.localtest.me';
  const headerPath = '/orders?id=7';
  checks.push({
    title: `${gatewayHost} (Gateway API) with the header x-backend: api goes to the api Service (HTTPRoute header match)`,
    curl: plain(gatewayHost, headerPath, `-H ${shellQuote('x-backend: api')} `).curl,
    run: async () => {
      const answer = await send(a.connectHost, { port: a.httpPort, host: gatewayHost, path: headerPath, headers: { 'x-backend': 'api' } });
      return expectService(answer, 'api', 200, headerPath);
    },
  });

  // Each request on a connection of its own: the weights pick per request, and no count depends on a worker.
  const splitRequests = 40;
  const splitMinimum = 5; // of 40 at 50/50: fewer on one side happens about once in five million runs
  checks.push({
    title: `${gatewayHost} (Gateway API) without the header: ${splitRequests} requests split between web and blog (weights 50/50)`,
    curl:
      `for i in $(seq ${splitRequests}); do curl -s -H ${shellQuote(`Host: ${gatewayHost}`)} ${shellQuote(`${http}/`)}; done ` +
      `| grep -o ${shellQuote('"service":"[a-z]*"')} | sort | uniq -c`,
    run: async () => {
      const counts = new Map<string, number>();
      for (let i = 0; i < splitRequests; i += 1) {
        const answer = await send(a.connectHost, { port: a.httpPort, host: gatewayHost, path: '/' });
        const service = String(answer.headers['x-echo-service'] ?? 'no echo backend');
        if (answer.status !== 200 || (service !== 'web' && service !== 'blog')) {
          return `expected 200 from web or blog, got ${answer.status} from ${service}: ${answer.body.slice(0, 200)}`;
        }
        counts.set(service, (counts.get(service) ?? 0) + 1);
      }
      const seen = ['web', 'blog'].map((service) => `${service} ${counts.get(service) ?? 0}`).join(', ');
      const balanced = ['web', 'blog'].every((service) => (counts.get(service) ?? 0) >= splitMinimum);
      return balanced ? undefined : `expected at least ${splitMinimum} of ${splitRequests} on each of web and blog, saw ${seen}`;
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
      const expected = ['shop.localtest.me', 'blog.localtest.me', secureHost, gatewayHost];
      const absent = expected.filter((d) => !domains.has(d));
      return absent.length === 0 ? undefined : `status ${answer.status}; route configs lack ${absent.join(', ')}`;
    },
  });
  return checks;
}
