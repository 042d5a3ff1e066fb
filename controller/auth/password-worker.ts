// A worker thread of PasswordWorkerPool: verifies one password against one hash per message, synchronously (the
// thread does nothing else), so the controller's event loop never runs bcrypt or SHA-crypt rounds.
import { setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';
import { verifyPassword } from './password-hash.js';

// Lowest scheduling priority for this thread (on Linux, setpriority of "process 0" is the calling thread's nice):
// verifications take whatever CPU the event loop (xDS, probes, other checks) and Envoy leave. Raising one's own
// nice needs no privilege; where it is refused the thread runs at normal priority.
try {
  setPriority(19);
} catch {
  // not permitted here
}

export interface VerifyJob {
  id: number;
  password: string;
  hash: string;
}

export interface VerifyResult {
  id: number;
  ok: boolean;
}

parentPort?.on('message', (job: VerifyJob) => {
  verifyPassword(job.password, job.hash).then(
    (ok) => parentPort?.postMessage({ id: job.id, ok } satisfies VerifyResult),
    // A hash the library cannot read verifies nothing.
    () => parentPort?.postMessage({ id: job.id, ok: false } satisfies VerifyResult),
  );
});
