// A worker thread of PasswordWorkerPool: verifies one password against one hash per message, synchronously (the
// thread does nothing else), so the controller's event loop never runs bcrypt or SHA-crypt rounds.
import { parentPort } from 'node:worker_threads';
import { verifyPassword } from './password-hash.js';

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
