// Parent side of api-creator-main.ts: one API client process for a scenario.
import { fileURLToPath } from 'node:url';
import { startLineChild } from './line-child.js';

const main = fileURLToPath(new URL('./api-creator-main.js', import.meta.url));

export interface ApiCreator {
  /** Creates `objects` in order, one request each; resolves with when that began and ended (this process's performance.now()). */
  create(objects: readonly object[]): Promise<{ startMs: number; doneMs: number }>;
  close(): Promise<void>;
}

export async function startApiCreator(kubeconfigPath: string): Promise<ApiCreator> {
  const child = await startLineChild(main, [kubeconfigPath]);
  return {
    async create(objects) {
      const reply = (await child.ask({ objects })) as { startMs: number; doneMs: number } | { error: string };
      if ('error' in reply) throw new Error(`creating through the API: ${reply.error}`);
      return { startMs: child.localMs(reply.startMs), doneMs: child.localMs(reply.doneMs) };
    },
    close: () => child.close(),
  };
}
