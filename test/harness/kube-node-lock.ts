/**
 * One real node per machine: test files (separate processes) that need it take this lock first. It is an
 * flock(1) held by a child process for as long as its stdin stays open, so the lock goes away with the test
 * process however that ends (the pipe closes, `cat` exits, the kernel drops the lock).
 */
import { spawn } from 'node:child_process';

export const NODE_LOCK_FILE = '/run/lock/envoy-ingress-node.lock';

export interface NodeLock {
  release(): Promise<void>;
}

export async function acquireNodeLock(timeoutMs: number): Promise<NodeLock> {
  const child = spawn('flock', ['--exclusive', '--timeout', String(Math.ceil(timeoutMs / 1000)), NODE_LOCK_FILE, 'sh', '-c', 'echo locked; exec cat'], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  const locked = await new Promise<boolean>((resolve) => {
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      if (chunk.includes('locked')) resolve(true);
    });
    void exited.then(() => resolve(false));
  });
  if (!locked) throw new Error(`Could not take ${NODE_LOCK_FILE} within ${timeoutMs} ms (another node is running?): ${stderr.trim()}`);
  return {
    async release() {
      child.stdin.end();
      await exited;
    },
  };
}
