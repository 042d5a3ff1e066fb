// What ingress-nginx basic auth costs per request through the real Envoy (its ext_authz asks the controller over
// gRPC, controller/auth/): wrk against one host without auth and hosts whose users have a {SHA}, an apr1 and a
// bcrypt hash (each made by the libraries htpasswd-compatible tools use), the right password (verified once, then
// answered from the cache) and a wrong one (verified again once the negative cache forgets it, 5 s). Also the cost of one verification per
// scheme in this process. Run: npm run build && node dist/bench/basic-auth-cost.js [seconds=5]
import { createHash } from 'node:crypto';
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import apacheMd5 from 'apache-md5';
import bcrypt from 'bcryptjs';
import { stringify } from 'yaml';
import { createLogger } from '../cli/logger.js';
import { startStandaloneController } from '../cli/standalone-controller.js';
import { verifyPassword } from '../controller/auth/password-hash.js';
import { defaultTranslateOptions } from '../controller/translate/shared/options.js';
import { startEchoProcess } from './echo-process.js';
import { getStatus, startEnvoyStack } from './envoy-stack.js';
import { ensureWrk, parseWrk } from './wrk.js';

const execFileAsync = promisify(execFile);
const seconds = Number(process.argv[2] ?? 5);
const password = 'correct horse';

const hashes: Record<string, string> = {
  sha: `{SHA}${createHash('sha1').update(password).digest('base64')}`,
  apr1: apacheMd5(password),
  'bcrypt-5': bcrypt.hashSync(password, 5),
  'bcrypt-10': bcrypt.hashSync(password, 10),
};

function manifests(echo: { address: string; port: number }): string {
  const ingress = (name: string, annotations: Record<string, string>): object => ({
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: { name, namespace: 'default', annotations },
    spec: { rules: [{ host: `${name}.test`, http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'web', port: { number: 80 } } } }] } }] },
  });
  const objects: object[] = [
    { apiVersion: 'networking.k8s.io/v1', kind: 'IngressClass', metadata: { name: 'envoy-ingress', annotations: { 'ingressclass.kubernetes.io/is-default-class': 'true' } }, spec: { controller: 'envoy-ingress.io/ingress-controller' } },
    { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'default' }, spec: { ports: [{ name: 'http', port: 80 }] } },
    {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { name: 'web-1', namespace: 'default', labels: { 'kubernetes.io/service-name': 'web' } },
      addressType: 'IPv4',
      ports: [{ name: 'http', port: echo.port }],
      endpoints: [{ addresses: [echo.address], conditions: { ready: true } }],
    },
    ingress('open', {}),
  ];
  for (const [scheme, hash] of Object.entries(hashes)) {
    objects.push({ apiVersion: 'v1', kind: 'Secret', metadata: { name: `users-${scheme}`, namespace: 'default' }, type: 'Opaque', stringData: { auth: `user:${hash}\n` } });
    objects.push(ingress(scheme, { 'nginx.ingress.kubernetes.io/auth-type': 'basic', 'nginx.ingress.kubernetes.io/auth-secret': `users-${scheme}` }));
  }
  return objects.map((o) => stringify(o)).join('---\n');
}

async function main(): Promise<void> {
  const wrk = ensureWrk();
  if (wrk === undefined) throw new Error('wrk is needed (apt-get install wrk)');
  const echo = await startEchoProcess('web');
  const stack = await startEnvoyStack({
    controller: async ({ dir, httpPort, httpsPort }) => {
      await writeFile(join(dir, 'objects.yaml'), manifests(echo));
      return startStandaloneController({
        manifestsDir: dir,
        xdsHost: '127.0.0.1',
        xdsPort: 0,
        translate: { ...defaultTranslateOptions, httpsRedirectPort: httpsPort, nginxAnnotations: true },
        envoy: { listenAddress: '127.0.0.1', httpPort, httpsPort },
        log: createLogger('silent'),
      });
    },
  });
  try {
    for (let i = 0; i < 200 && (await getStatus(stack.httpPort, 'bcrypt-10.test')) !== 401; i++) await new Promise((r) => setTimeout(r, 50));
    const rows: string[] = [];
    const run = async (label: string, host: string, authorization?: string): Promise<void> => {
      const args = ['-t', '1', '-c', '16', '-d', `${seconds}s`, '--latency', '-H', `Host: ${host}`];
      if (authorization !== undefined) args.push('-H', `Authorization: ${authorization}`);
      const { stdout } = await execFileAsync(wrk, [...args, `http://127.0.0.1:${stack.httpPort}/`], { timeout: (seconds + 30) * 1000 });
      const r = parseWrk(stdout);
      rows.push(`| ${label} | ${Math.round(r.requestsPerSecond)} | ${r.p50Ms.toFixed(2)} | ${r.p99Ms.toFixed(2)} | ${r.non2xx} |`);
    };
    const basic = (pw: string): string => `Basic ${Buffer.from(`user:${pw}`).toString('base64')}`;
    // Steady state: each right password verified once before the runs (the first request of a user pays it).
    for (const scheme of Object.keys(hashes)) {
      await execFileAsync('curl', ['-s', '-o', '/dev/null', '-H', `Host: ${scheme}.test`, '-H', `Authorization: ${basic(password)}`, `http://127.0.0.1:${stack.httpPort}/`]);
    }
    await run('no auth', 'open.test');
    for (const scheme of Object.keys(hashes)) await run(`${scheme}, right password (cached)`, `${scheme}.test`, basic(password));
    for (const scheme of Object.keys(hashes)) await run(`${scheme}, wrong password (verified once per 5 s: failures are remembered that long)`, `${scheme}.test`, basic('wrong'));
    console.log(`wrk -t1 -c16 -d${seconds}s through one Envoy (concurrency 1), controller in this process, echo backend in its own\n`);
    console.log('| request | req/s | p50 ms | p99 ms | non-2xx |\n|---|---|---|---|---|');
    console.log(rows.join('\n'));
    console.log('\none verification in this process (no cache), median of 20:');
    for (const [scheme, hash] of Object.entries(hashes)) {
      const times: number[] = [];
      for (let i = 0; i < 20; i++) {
        const started = performance.now();
        await verifyPassword(password, hash);
        times.push(performance.now() - started);
      }
      times.sort((a, b) => a - b);
      console.log(`  ${scheme}: ${times[10]!.toFixed(3)} ms`);
    }
  } finally {
    await stack.stop();
    await echo.close();
  }
}

await main();
