// Data loader of the Performance page: draws its charts from bench/results/latest.json when the site is built (and
// again in `npm run docs` whenever that file changes), so the charts are always those of the committed results.
import { readFileSync } from 'node:fs';
import { defineLoader } from 'vitepress';
import { performanceCharts, renderBarChart, type BenchResults } from '../gen/perf-charts.js';

export interface Data {
  /** SVG text by chart id. */
  charts: Record<string, string>;
  startedAt: string;
  machine: string;
}

declare const data: Data;
export { data };

export default defineLoader({
  watch: ['../../bench/results/latest.json'],
  load(files: string[]): Data {
    const file = files[0];
    if (file === undefined) throw new Error('bench/results/latest.json is missing: the Performance charts are drawn from it');
    const results = JSON.parse(readFileSync(file, 'utf8')) as BenchResults;
    const charts = Object.fromEntries(Object.entries(performanceCharts(results)).map(([id, chart]) => [id, renderBarChart(chart)]));
    const m = results.machine;
    return { charts, startedAt: results.startedAt, machine: `${m.cores} cores (${m.cpuModel}), reference loop ${m.referenceLoopMs} ms` };
  },
});
