// Ad-hoc entry for one scenario while developing: node dist/bench/quick.js incremental 1000
import { benchCertificate } from './bench-certs.js';
import { runIncrementalCost } from './incremental-cost.js';
import { syntheticCluster } from './synthetic-cluster.js';

const [what, size] = [process.argv[2], Number(process.argv[3] ?? 1000)];
const a = await benchCertificate();
const b = await benchCertificate();
if (what === 'incremental') {
  const state = syntheticCluster({ ingresses: size, tls: a });
  console.log(JSON.stringify(await runIncrementalCost(state, 5, [a, b]), null, 1));
}
if (what === 'convergence') {
  const { runConvergence } = await import('./convergence.js');
  console.log(JSON.stringify(await runConvergence([0, size], 5, a, true), null, 1));
}
process.exit(0);
