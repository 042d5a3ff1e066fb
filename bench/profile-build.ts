// Profiling entry: one synthetic cluster, repeated full builds. Run with node --cpu-prof to find hot paths:
//   node --expose-gc --cpu-prof --cpu-prof-dir=bench/profiles dist/bench/profile-build.js 10000 3
import { benchCertificate } from './bench-certs.js';
import { runTranslationScale } from './translation-scale.js';

const size = Number(process.argv[2] ?? 10000);
const runs = Number(process.argv[3] ?? 3);
const tls = await benchCertificate();
console.log(JSON.stringify(runTranslationScale([size], () => runs, tls), null, 2));
