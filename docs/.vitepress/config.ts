// The documentation site (VitePress). `npm run docs` serves it with live reload, `npm run docs:build` writes the
// static site to docs/.vitepress/dist. Dead internal links fail the build (VitePress's own check); missing anchors
// are checked over the built HTML by docs/gen/check-links.ts (test/docs-site.test.ts).
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitepress';

/** The Performance page's charts are drawn from this file; the dev server reloads them when it changes. */
const benchResults = fileURLToPath(new URL('../../bench/results/latest.json', import.meta.url));

export default defineConfig({
  title: 'envoy-ingress',
  description: 'A Kubernetes Ingress controller that programs Envoy over xDS',
  // docs/README.md is about the site's sources, docs/gen/ holds the generators (TypeScript compiled by tsc).
  srcExclude: ['README.md', 'gen/**'],
  cleanUrls: false,
  lastUpdated: false,
  // Every internal link must resolve; only links into the repository (../ beyond docs/) are left to the reader.
  ignoreDeadLinks: false,
  // An empty icon: otherwise every page asks for /favicon.ico, whose 404 a browser reports as a console error.
  head: [['link', { rel: 'icon', href: 'data:,' }]],
  markdown: { lineNumbers: false },
  vite: {
    // Vite watches docs/ only; the bench results live outside it.
    plugins: [{ name: 'watch-bench-results', configureServer: (server) => void server.watcher.add(benchResults) }],
  },
  themeConfig: {
    // Offline full-text search: VitePress builds a MiniSearch index of every page into the site itself.
    search: { provider: 'local' },
    outline: { level: [2, 3] },
    nav: [
      { text: 'Getting started', link: '/getting-started/' },
      { text: 'Install', link: '/install/' },
      { text: 'Guides', link: '/guides/ingress-semantics' },
      { text: 'Reference', link: '/reference/' },
      { text: 'Performance', link: '/performance/' },
      { text: 'Contributing', link: '/contributing/architecture' },
    ],
    sidebar: [
      {
        text: 'Getting started',
        items: [
          { text: 'The standalone demo', link: '/getting-started/' },
          { text: 'A first Ingress in a cluster', link: '/getting-started/first-ingress' },
          { text: 'TLS with a Secret', link: '/getting-started/tls' },
        ],
      },
      {
        text: 'Install',
        items: [
          { text: 'Overview', link: '/install/' },
          { text: 'With Helm', link: '/install/helm' },
          { text: 'With kubectl', link: '/install/kubectl' },
          { text: 'Install variants', link: '/install/variants' },
          { text: 'Upgrades and uninstall', link: '/install/upgrades' },
          { text: 'Releases', link: '/install/releases' },
        ],
      },
      {
        text: 'Guides',
        items: [
          { text: 'Ingress semantics', link: '/guides/ingress-semantics' },
          { text: 'Annotations', link: '/guides/annotations' },
          { text: 'TLS and certificates', link: '/guides/tls' },
          { text: 'Coming from ingress-nginx', link: '/guides/coming-from-ingress-nginx' },
          { text: 'The ingress-nginx ConfigMap', link: '/guides/ingress-nginx-configmap' },
          { text: 'ingress-nginx basic auth', link: '/guides/ingress-nginx-basic-auth' },
          { text: 'ingress-nginx client certificates', link: '/guides/ingress-nginx-mtls' },
          { text: 'Gateway API', link: '/guides/gateway-api' },
          { text: 'Moving to the Gateway API', link: '/guides/moving-to-gateway-api' },
          { text: 'Multi-tenant clusters', link: '/guides/multi-tenant' },
          { text: 'Security defaults', link: '/guides/security' },
          { text: 'Observability', link: '/guides/observability' },
          { text: 'Debugging: why 404?', link: '/guides/debugging' },
          { text: 'Troubleshooting', link: '/guides/troubleshooting' },
          { text: 'Running the controller', link: '/guides/command-line' },
          { text: 'Operating at scale', link: '/guides/scale' },
        ],
      },
      {
        text: 'Reference (generated)',
        items: [
          { text: 'Overview', link: '/reference/' },
          { text: 'Command-line flags', link: '/reference/cli' },
          { text: 'Annotations', link: '/reference/annotations' },
          { text: 'ingress-nginx annotations', link: '/reference/nginx-annotations' },
          { text: 'ingress-nginx ConfigMap keys', link: '/reference/nginx-configmap' },
          { text: 'Metrics', link: '/reference/metrics' },
          { text: 'Helm values', link: '/reference/helm-values' },
          { text: 'Events and diagnostics', link: '/reference/reasons' },
        ],
      },
      {
        text: 'Performance',
        items: [
          { text: 'Charts and method', link: '/performance/' },
          { text: 'Targets and design', link: '/performance/targets' },
          { text: 'Scale to 50,000 Ingresses', link: '/performance/scale' },
          { text: 'Beside Contour', link: '/performance/contour' },
          { text: 'Latest results', link: '/performance/latest-results' },
        ],
      },
      {
        text: 'Contributing',
        items: [
          { text: 'Architecture', link: '/contributing/architecture' },
          { text: 'Adding an annotation', link: '/contributing/adding-an-annotation' },
          { text: 'Tests', link: '/contributing/tests' },
        ],
      },
    ],
  },
});
