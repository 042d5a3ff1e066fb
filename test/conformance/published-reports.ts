// The reports `npm run conformance` published in conformance/reports/<version>/, read back.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { parse } from 'yaml';
import type { ConformanceReport } from './report-summary.js';

/** The newest report in `dir` (by its `date`), with its file name; undefined when none is published. */
export async function newestPublishedReport(dir: string): Promise<{ file: string; report: ConformanceReport } | undefined> {
  const files = (await readdir(dir)).filter((f) => f.endsWith('-report.yaml'));
  const reports = await Promise.all(files.map(async (file) => ({ file, report: parse(await readFile(path.join(dir, file), 'utf8')) as ConformanceReport })));
  return reports.sort((a, b) => Date.parse(b.report.date) - Date.parse(a.report.date))[0];
}
