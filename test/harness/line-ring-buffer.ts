/**
 * Keeps the last N lines written by a child process (stdout and stderr interleaved as they arrive), so a
 * failing test can show what the process said without holding unbounded output.
 */
export class LineRingBuffer {
  readonly #lines: string[] = [];
  /** Unterminated last line per stream, joined with the next chunk of the same stream. */
  readonly #partials = new Map<string, string>();
  #dropped = 0;

  constructor(private readonly maxLines: number) {}

  append(stream: string, chunk: string | Buffer): void {
    const parts = ((this.#partials.get(stream) ?? '') + chunk.toString()).split('\n');
    this.#partials.set(stream, parts.pop() ?? '');
    for (const line of parts) this.#push(line);
  }

  /** Stores any unterminated lines (call when the streams end). */
  flush(): void {
    for (const partial of this.#partials.values()) if (partial !== '') this.#push(partial);
    this.#partials.clear();
  }

  /** The kept lines, or only the last `lastLines` of them; says how many earlier lines are not shown. */
  toString(lastLines?: number): string {
    const all = [...this.#lines, ...[...this.#partials.values()].filter((partial) => partial !== '')];
    const shown = lastLines === undefined ? all : all.slice(Math.max(0, all.length - lastLines));
    const hidden = this.#dropped + all.length - shown.length;
    return [...(hidden > 0 ? [`... ${hidden} earlier lines not shown ...`] : []), ...shown].join('\n');
  }

  #push(line: string): void {
    this.#lines.push(line);
    if (this.#lines.length > this.maxLines) {
      this.#lines.shift();
      this.#dropped += 1;
    }
  }
}
