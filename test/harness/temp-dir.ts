/** Temporary directories for test processes (bootstrap files, admin address files, certificates). */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TempDir {
  path: string;
  /** Path of `name` inside the directory. */
  file(name: string): string;
  remove(): Promise<void>;
}

export async function createTempDir(prefix = 'envoy-ingress-test-'): Promise<TempDir> {
  const path = await mkdtemp(join(tmpdir(), prefix));
  return {
    path,
    file: (name) => join(path, name),
    remove: () => rm(path, { recursive: true, force: true }),
  };
}
