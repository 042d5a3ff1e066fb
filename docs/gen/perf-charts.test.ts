// The Performance page's charts: drawn from latest.json's numbers, one bar per measurement, and refusing results
// that lack what the charts need rather than drawing an empty chart.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import test from 'ava';
import { findRepoRoot } from '../../test/harness/repo-root.js';
import { formatNumber, performanceCharts, renderBarChart, tickStep, type BenchResults } from './perf-charts.js';

const latest = JSON.parse(readFileSync(path.join(findRepoRoot(), 'bench/results/latest.json'), 'utf8')) as BenchResults;

test('the committed results give every chart of the page (the HTTPRoute one once a gateway-api run is in them)', (t) => {
  const expected = ['apply-vs-contour', 'apply-vs-routes', 'memory-by-size', 'memory-vs-contour', ...(latest.gatewayApi === undefined ? [] : ['apply-httproute-vs-ingress'])];
  t.deepEqual(Object.keys(performanceCharts(latest)).sort(), expected.sort());
});

test('HTTPRoute beside Ingress: a p50 and p99 bar per kind at each route count both scenarios measured; none without a gateway-api run', (t) => {
  const summary = (median: number) => ({ median, p99: median * 2 });
  const results: BenchResults = {
    ...latest,
    kubeConvergence: [{ existingRoutes: 0, applyTo200Ms: summary(20) }, { existingRoutes: 5040, applyTo200Ms: summary(60) }],
    gatewayApi: { kubeConvergence: [{ existingRoutes: 0, applyTo200Ms: summary(25) }, { existingRoutes: 5012, applyTo200Ms: summary(70) }] },
  };
  const chart = performanceCharts(results)['apply-httproute-vs-ingress']!;
  t.deepEqual(chart.groups.map((g) => g.label), ['0 / 0 routes', '5,040 / 5,012 routes']);
  t.deepEqual(chart.groups[1]!.bars, [
    { series: 'Ingress', value: 60, upper: 120 },
    { series: 'HTTPRoute', value: 70, upper: 140 },
  ]);
  const { gatewayApi: _none, ...withoutGatewayApi } = results;
  t.is(performanceCharts(withoutGatewayApi)['apply-httproute-vs-ingress'], undefined);
});

test('apply -> 200 beside Contour: a p50 and p99 bar per controller and size, from the results', (t) => {
  const chart = performanceCharts(latest)['apply-vs-contour']!;
  t.deepEqual(
    chart.groups.map((g) => g.label),
    latest.peers.rows.map((r) => `${r.existingRoutes.toLocaleString('en-US')} routes`),
  );
  const last = latest.peers.rows.at(-1)!;
  t.deepEqual(chart.groups.at(-1)!.bars, [
    { series: 'envoy-ingress', value: last.ours.applyTo200Ms!.median, upper: last.ours.applyTo200Ms!.p99 },
    { series: 'Contour', value: last.contour.applyTo200Ms!.median, upper: last.contour.applyTo200Ms!.p99 },
  ]);
  const svg = renderBarChart(chart);
  t.regex(svg, /^<svg [^>]*role="img"/);
  // Two rects per bar (p99 behind, p50 in front), two bars per size, and the legend's two swatches.
  t.is([...svg.matchAll(/<rect /g)].length, chart.groups.length * 4 + 2);
  t.true(svg.includes(`${formatNumber(last.ours.applyTo200Ms!.median)}/${formatNumber(last.ours.applyTo200Ms!.p99)}`));
});

test('memory at 10,000 and 50,000 Ingresses comes from the scale and convergence scenarios', (t) => {
  const chart = performanceCharts(latest)['memory-by-size']!;
  const at = (n: number) => latest.translationScale.sizes.find((s) => s.ingresses === n)!;
  t.deepEqual(chart.groups.map((g) => g.bars.find((b) => b.series === 'controller RSS')?.value), [at(10_000).rssMiB, at(50_000).rssMiB]);
  const envoy50k = latest.convergence.convergence.find((c) => c.existingIngresses === 50_000)!.usage.envoyRssMiB;
  t.is(chart.groups[1]!.bars.find((b) => b.series === 'Envoy RSS')?.value, envoy50k);
});

test('results without a size both controllers finished are refused, not drawn empty', (t) => {
  const broken: BenchResults = { ...latest, peers: { ...latest.peers, rows: latest.peers.rows.map((r) => ({ ...r, contour: {} })) } };
  t.throws(() => performanceCharts(broken), { message: /no size both controllers finished/ });
});

test('axis ticks are 1, 2 or 5 times a power of ten, about five of them', (t) => {
  t.is(tickStep(324), 100);
  t.is(tickStep(2770), 1000);
  t.is(tickStep(42), 10);
  t.is(tickStep(4.4), 1);
  t.is(tickStep(0), 1);
});

test('labels are short and escaped', (t) => {
  t.is(formatNumber(2118.23), '2,118');
  t.is(formatNumber(16.74), '16.7');
  const svg = renderBarChart({ title: 'a <b> & c', unit: 'ms', series: [{ name: 's', color: '#000' }], groups: [{ label: 'g', bars: [{ series: 's', value: 1 }] }], note: '' });
  t.true(svg.includes('a &lt;b&gt; &amp; c'));
  t.false(svg.includes('<b>'));
});
