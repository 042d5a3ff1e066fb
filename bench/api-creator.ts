// Parent side of api-creator-main.ts: one API client process for a scenario.
import { fileURLToPath } from 'node:url';
import { startLineChild } from './line-child.js';

const main = fileURLToPath(new URL('./api-creator-main.js', import.meta.url));

export interface ApiCreator {
  /** Creates `objects` in order, one request each; resolves with when that began and ended (this process's performance.now()). */
  create(objects: readonly object[]): Promise<{ startMs: number; doneMs: number }>;
  /** The same, replacing existing objects (PUT). */
  replace(objects: readonly object[]): Promise<{ startMs: number; doneMs: number }>;
  /**
   * The same, as merge patches of existing objects (PATCH): what changes a custom resource in one request, where a
   * PUT would need the object's resourceVersion. Lists in the patch replace the object's lists.
   */
  patch(objects: readonly object[]): Promise<{ startMs: number; doneMs: number }>;
  close(): Promise<void>;
}

export async function startApiCreator(kubeconfigPath: string): Promise<ApiCreator> {
  const child = await startLineChild(main, [kubeconfigPath]);
  const ask = async (objects: readonly object[], mode: 'create' | 'replace' | 'patch'): Promise<{ startMs: number; doneMs: number }> => {
    const reply = (await child.ask({ objects, mode })) as { startMs: number; doneMs: number } | { error: string };
    if ('error' in reply) throw new Error(`${mode === 'create' ? 'creating' : mode === 'replace' ? 'replacing' : 'patching'} through the API: ${reply.error}`);
    return { startMs: child.localMs(reply.startMs), doneMs: child.localMs(reply.doneMs) };
  };
  return {
    create: (objects) => ask(objects, 'create'),
    replace: (objects) => ask(objects, 'replace'),
    patch: (objects) => ask(objects, 'patch'),
    close: () => child.close(),
  };
}
