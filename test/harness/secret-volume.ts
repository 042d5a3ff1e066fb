// A directory laid out and updated the way the kubelet writes a Secret (or ConfigMap) volume: the files live in a
// timestamped directory, `..data` is a symlink to it, each key is a symlink through `..data`, and an update
// writes a new directory and renames a new `..data_tmp` symlink over `..data` (one atomic move; the key
// symlinks never change, so watching the key files themselves sees nothing).
import { mkdir, readlink, rename, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';

export interface SecretVolume {
  dir: string;
  /** Path of a key's file (the stable symlink). */
  file(key: string): string;
  /** Replaces the whole content atomically; the first call creates the layout. */
  write(files: Record<string, string>): Promise<void>;
}

export function secretVolume(dir: string): SecretVolume {
  let generation = 0;
  return {
    dir,
    file: (key) => path.join(dir, key),
    async write(files) {
      generation += 1;
      const data = `..${new Date(0).toISOString().slice(0, 10)}_gen${generation}`;
      await mkdir(path.join(dir, data), { recursive: true });
      for (const [key, content] of Object.entries(files)) await writeFile(path.join(dir, data, key), content);
      const previous = await readlink(path.join(dir, '..data')).catch(() => undefined);
      await symlink(data, path.join(dir, '..data_tmp'));
      await rename(path.join(dir, '..data_tmp'), path.join(dir, '..data'));
      for (const key of Object.keys(files)) {
        await symlink(path.join('..data', key), path.join(dir, key)).catch((err: NodeJS.ErrnoException) => {
          if (err.code !== 'EEXIST') throw err;
        });
      }
      if (previous !== undefined) await rm(path.join(dir, previous), { recursive: true, force: true });
    },
  };
}
