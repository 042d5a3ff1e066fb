// Markdown helpers of the generated reference pages. VitePress compiles every page to a Vue template, so text that
// Vue would read as markup (`<host>`, `{{`) is escaped, and a table cell must not break its row.

/** The first line of every generated page: says where it comes from and how to regenerate it. */
export const generatedNotice = (source: string): string =>
  `<!-- Generated from ${source} by \`npm run docs:gen\` (docs/gen/). Do not edit: a test fails when it differs from the code. -->`;

/** Text for a table cell: one line, no column break, nothing Vue or HTML would interpret. */
export function cell(text: string): string {
  return escapeText(text).replaceAll('|', '\\|').replace(/\s*\n\s*/g, ' ');
}

/** Text outside code spans: `<` and `{{` would be read as HTML and Vue interpolation. */
export function escapeText(text: string): string {
  // Code spans keep their text as is (markdown-it escapes them); only the prose between them is escaped.
  return text
    .split(/(`[^`]*`)/)
    .map((part, i) => (i % 2 === 1 ? part : part.replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('{{', '&#123;&#123;')))
    .join('');
}

/** Inline code, with a backtick inside the value handled by a longer fence. */
export function code(text: string): string {
  const fence = text.includes('`') ? '``' : '`';
  const pad = text.startsWith('`') || text.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${text}${pad}${fence}`;
}

export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  return [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
}

/** A page: notice, title, then blocks separated by blank lines, ending in one newline. */
export function page(source: string, title: string, ...blocks: string[]): string {
  return `${[generatedNotice(source), '', `# ${title}`, '', blocks.join('\n\n')].join('\n')}\n`;
}
