// `npm run docs:gen`: writes the generated reference pages (docs/reference/*.md but index.md) from the code.
// `--check` writes nothing and exits 1 naming the pages that are out of date.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { findRepoRoot } from '../../test/harness/repo-root.js';
import { generateReferencePages } from './reference-pages.js';

const root = findRepoRoot();
const check = process.argv.includes('--check');
const stale: string[] = [];
for (const [file, content] of await generateReferencePages(root)) {
  const full = path.join(root, file);
  let current: string | undefined;
  try {
    current = readFileSync(full, 'utf8');
  } catch {
    current = undefined;
  }
  if (current === content) continue;
  stale.push(file);
  if (!check) writeFileSync(full, content);
}
process.stdout.write(stale.length === 0 ? 'docs:gen: every reference page is up to date\n' : `docs:gen: ${check ? 'out of date' : 'rewrote'}: ${stale.join(', ')}\n`);
// main.ts imports cli/main.ts for its definitions; its lazy imports keep nothing running, but exit explicitly anyway.
process.exit(check && stale.length > 0 ? 1 : 0);
