// The charts of the Performance page, drawn as SVG from bench/results/latest.json when the site is built (the
// page's data loader, docs/performance/charts.data.ts, calls performanceCharts). Pure: JSON in, SVG text out.

export interface Summary {
  median: number;
  p99: number;
}

/** The parts of latest.json the charts read (bench/run.ts writes it). */
export interface BenchResults {
  startedAt: string;
  machine: { cores: number; cpuModel: string; referenceLoopMs: number };
  translationScale: { sizes: { ingresses: number; routes: number; rssMiB: number; heapAfterGcMiB: number }[] };
  convergence: { convergence: { existingRoutes: number; existingIngresses: number; applyTo200Ms: Summary; usage: { controllerRssMiB: number; envoyRssMiB: number } }[] };
  /** Kubernetes mode (BENCH_ONLY=kube), and the same with HTTPRoutes (BENCH_ONLY=gateway-api), at the same route counts. */
  kubeConvergence?: { existingRoutes: number; applyTo200Ms: Summary }[];
  gatewayApi?: { kubeConvergence: { existingRoutes: number; applyTo200Ms: Summary }[] };
  peers: {
    contour: { version: string };
    rows: { existingRoutes: number; ours: { applyTo200Ms?: Summary }; contour: { applyTo200Ms?: Summary } }[];
    bulk?: {
      ingresses: number;
      ours: { peakRssMiB?: number; envoyPeakRssMiB?: number };
      contour: { peakRssMiB?: number; envoyPeakRssMiB?: number };
    };
  };
}

export interface Bar {
  series: string;
  /** The bar's height (a median, or a single reading). */
  value: number;
  /** Drawn as a lighter bar behind it (a p99). */
  upper?: number;
}

export interface BarChart {
  title: string;
  unit: string;
  groups: { label: string; bars: Bar[] }[];
  /** Series in legend order, with their colour. */
  series: { name: string; color: string }[];
  /** A line under the chart saying what the light part of a bar is, or where the numbers come from. */
  note: string;
}

const width = 720;
const height = 340;
const margin = { top: 48, right: 16, bottom: 78, left: 64 };

const escapeXml = (text: string): string => text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');

/** Value labels: three significant digits at most, thousands grouped. */
export function formatNumber(value: number): string {
  const rounded = value >= 100 ? Math.round(value) : Number(value.toPrecision(3));
  return rounded.toLocaleString('en-US');
}

/** 1, 2 or 5 times a power of ten, so that about five ticks cover max. */
export function tickStep(max: number): number {
  if (max <= 0) return 1;
  const raw = max / 5;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw);
  return step ?? 10 * power;
}

export function renderBarChart(chart: BarChart): string {
  const max = Math.max(...chart.groups.flatMap((g) => g.bars.map((b) => b.upper ?? b.value)), 0);
  const step = tickStep(max);
  const top = Math.ceil(max / step) * step || step;
  const plotW = width - margin.left - margin.right;
  const plotH = height - margin.top - margin.bottom;
  const y = (v: number): number => margin.top + plotH - (v / top) * plotH;
  const colorOf = new Map(chart.series.map((s) => [s.name, s.color]));
  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" role="img" aria-label="${escapeXml(chart.title)}" class="bench-chart" font-family="system-ui, sans-serif" font-size="12">`,
    `<title>${escapeXml(chart.title)}</title>`,
    `<text x="${margin.left}" y="20" font-size="15" font-weight="600" fill="currentColor">${escapeXml(chart.title)}</text>`,
  );
  // Legend, right-aligned on the title line's row below it.
  chart.series.forEach((s, i) => {
    const x = margin.left + i * 170;
    out.push(`<rect x="${x}" y="30" width="10" height="10" fill="${s.color}"/>`, `<text x="${x + 14}" y="39" fill="currentColor">${escapeXml(s.name)}</text>`);
  });
  for (let v = 0; v <= top + 1e-9; v += step) {
    const yy = y(v).toFixed(1);
    out.push(
      `<line x1="${margin.left}" x2="${width - margin.right}" y1="${yy}" y2="${yy}" stroke="currentColor" stroke-opacity="0.15"/>`,
      `<text x="${margin.left - 6}" y="${yy}" dy="4" text-anchor="end" fill="currentColor">${formatNumber(v)}</text>`,
    );
  }
  out.push(`<text transform="translate(14 ${margin.top + plotH / 2}) rotate(-90)" text-anchor="middle" fill="currentColor">${escapeXml(chart.unit)}</text>`);
  const groupW = plotW / Math.max(chart.groups.length, 1);
  chart.groups.forEach((group, gi) => {
    const barW = Math.min(56, (groupW * 0.8) / Math.max(group.bars.length, 1));
    const start = margin.left + gi * groupW + (groupW - barW * group.bars.length) / 2;
    group.bars.forEach((bar, bi) => {
      const x = start + bi * barW;
      const color = colorOf.get(bar.series) ?? '#888';
      const label = `${bar.series}, ${group.label}: ${formatNumber(bar.value)}${bar.upper !== undefined ? ` (p99 ${formatNumber(bar.upper)})` : ''} ${chart.unit}`;
      if (bar.upper !== undefined) {
        out.push(`<rect x="${(x + 2).toFixed(1)}" y="${y(bar.upper).toFixed(1)}" width="${(barW - 4).toFixed(1)}" height="${(y(0) - y(bar.upper)).toFixed(1)}" fill="${color}" fill-opacity="0.3"><title>${escapeXml(label)}</title></rect>`);
      }
      out.push(
        `<rect x="${(x + 2).toFixed(1)}" y="${y(bar.value).toFixed(1)}" width="${(barW - 4).toFixed(1)}" height="${(y(0) - y(bar.value)).toFixed(1)}" fill="${color}"><title>${escapeXml(label)}</title></rect>`,
        `<text x="${(x + barW / 2).toFixed(1)}" y="${(y(bar.upper ?? bar.value) - 4).toFixed(1)}" text-anchor="middle" font-size="11" fill="currentColor">${formatNumber(bar.value)}${bar.upper !== undefined ? `/${formatNumber(bar.upper)}` : ''}</text>`,
      );
    });
    out.push(`<text x="${(margin.left + gi * groupW + groupW / 2).toFixed(1)}" y="${height - margin.bottom + 18}" text-anchor="middle" fill="currentColor">${escapeXml(group.label)}</text>`);
  });
  out.push(
    `<line x1="${margin.left}" x2="${width - margin.right}" y1="${y(0).toFixed(1)}" y2="${y(0).toFixed(1)}" stroke="currentColor"/>`,
    `<text x="${margin.left}" y="${height - 14}" font-size="11" fill="currentColor" fill-opacity="0.8">${escapeXml(chart.note)}</text>`,
    '</svg>',
  );
  return out.join('\n');
}

const ours = '#1f77b4';
const contour = '#ff7f0e';
const envoyColor = '#2ca02c';
const grouped = (n: number): string => n.toLocaleString('en-US');
const p50p99 = 'Solid: median (p50); light: p99. Numbers on the bars: p50/p99.';

/** The charts of the Performance page, by id. Throws when latest.json lacks what a chart needs. */
export function performanceCharts(results: BenchResults): Record<string, BarChart> {
  const charts: Record<string, BarChart> = {};
  const peerRows = results.peers.rows.filter((r) => r.ours.applyTo200Ms && r.contour.applyTo200Ms);
  if (peerRows.length === 0) throw new Error('latest.json: peers.rows has no size both controllers finished');
  charts['apply-vs-contour'] = {
    title: `Apply -> first 200 vs existing routes: envoy-ingress beside Contour ${results.peers.contour.version}`,
    unit: 'ms',
    series: [
      { name: 'envoy-ingress', color: ours },
      { name: 'Contour', color: contour },
    ],
    groups: peerRows.map((r) => ({
      label: `${grouped(r.existingRoutes)} routes`,
      bars: [
        { series: 'envoy-ingress', value: r.ours.applyTo200Ms!.median, upper: r.ours.applyTo200Ms!.p99 },
        { series: 'Contour', value: r.contour.applyTo200Ms!.median, upper: r.contour.applyTo200Ms!.p99 },
      ],
    })),
    note: `Kubernetes mode, same kube-apiserver, Envoy and measuring code. ${p50p99}`,
  };
  charts['apply-vs-routes'] = {
    title: 'Apply -> first 200 vs existing routes, standalone mode, up to 50,000 Ingresses',
    unit: 'ms',
    series: [{ name: 'envoy-ingress', color: ours }],
    groups: results.convergence.convergence.map((c) => ({
      label: c.existingRoutes === 0 ? '0 routes' : `${grouped(c.existingRoutes)} routes`,
      bars: [{ series: 'envoy-ingress', value: c.applyTo200Ms.median, upper: c.applyTo200Ms.p99 }],
    })),
    note: `A new manifest written -> first 200 from Envoy, polled every ms. ${p50p99}`,
  };
  // The kube and gateway-api scenarios run at the same requested route counts (BENCH_KUBE_ROUTES), in that order.
  const ingressKube = results.kubeConvergence ?? [];
  const routeKube = results.gatewayApi?.kubeConvergence ?? [];
  const pairs = routeKube.slice(0, ingressKube.length).map((r, i) => [ingressKube[i]!, r] as const);
  if (pairs.length > 0) {
    charts['apply-httproute-vs-ingress'] = {
      title: 'Created through the API -> first 200: an HTTPRoute beside an Ingress',
      unit: 'ms',
      series: [
        { name: 'Ingress', color: ours },
        { name: 'HTTPRoute', color: envoyColor },
      ],
      groups: pairs.map(([ingress, route]) => ({
        label: `${grouped(ingress.existingRoutes)} / ${grouped(route.existingRoutes)} routes`,
        bars: [
          { series: 'Ingress', value: ingress.applyTo200Ms.median, upper: ingress.applyTo200Ms.p99 },
          { series: 'HTTPRoute', value: route.applyTo200Ms.median, upper: route.applyTo200Ms.p99 },
        ],
      })),
      note: `Kubernetes mode: a Service, an EndpointSlice and the route object created. ${p50p99}`,
    };
  }
  const bulk = results.peers.bulk;
  if (bulk?.ours.peakRssMiB !== undefined && bulk.contour.peakRssMiB !== undefined) {
    charts['memory-vs-contour'] = {
      title: `Peak memory while ${grouped(bulk.ingresses)} Ingresses are created: envoy-ingress beside Contour`,
      unit: 'MiB (peak RSS)',
      series: [
        { name: 'envoy-ingress', color: ours },
        { name: 'Contour', color: contour },
      ],
      groups: [
        { label: 'controller', bars: [{ series: 'envoy-ingress', value: bulk.ours.peakRssMiB }, { series: 'Contour', value: bulk.contour.peakRssMiB }] },
        {
          label: 'its Envoy',
          bars: [
            { series: 'envoy-ingress', value: bulk.ours.envoyPeakRssMiB ?? 0 },
            { series: 'Contour', value: bulk.contour.envoyPeakRssMiB ?? 0 },
          ],
        },
      ],
      note: 'Every object created through the API from an empty cluster; VmHWM of each process.',
    };
  }
  const sizes = [10_000, 50_000].map((n) => results.translationScale.sizes.find((s) => s.ingresses === n));
  const envoyAt = (n: number): number | undefined => results.convergence.convergence.find((c) => c.existingIngresses === n)?.usage.envoyRssMiB;
  if (sizes.every((s) => s !== undefined)) {
    charts['memory-by-size'] = {
      title: 'Memory at 10,000 and 50,000 Ingresses',
      unit: 'MiB',
      series: [
        { name: 'controller RSS', color: ours },
        { name: 'controller heap after GC', color: '#9467bd' },
        { name: 'Envoy RSS', color: envoyColor },
      ],
      groups: sizes.map((s) => ({
        label: `${grouped(s!.ingresses)} Ingresses (${grouped(s!.routes)} routes)`,
        bars: [
          { series: 'controller RSS', value: s!.rssMiB },
          { series: 'controller heap after GC', value: s!.heapAfterGcMiB },
          ...(envoyAt(s!.ingresses) !== undefined ? [{ series: 'Envoy RSS', value: envoyAt(s!.ingresses)! }] : []),
        ],
      })),
      note: 'Controller: the full-build scenario after its builds. Envoy: the convergence scenario, where it ran at that size.',
    };
  }
  return charts;
}
