import test from 'ava';
import { cpuSecondsOfStat, procUsage, statusMiB } from './proc-usage.js';

test('CPU seconds are utime + stime of /proc/<pid>/stat, after a command name holding spaces and parentheses', (t) => {
  const stat = '4242 (node (x) y) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 130 0 0 20 0 11 0 5000 1000000 20000';
  t.is(cpuSecondsOfStat(stat), 3.8);
});

test('memory lines of /proc/<pid>/status are read in MiB', (t) => {
  const status = 'Name:\tnode\nVmHWM:\t  524288 kB\nVmRSS:\t  262144 kB\n';
  t.is(statusMiB(status, 'VmHWM'), 512);
  t.is(statusMiB(status, 'VmRSS'), 256);
  t.throws(() => statusMiB(status, 'VmSwap'), { message: /VmSwap/ });
});

test('this process has used CPU and its peak RSS is at least its RSS', (t) => {
  const u = procUsage(process.pid);
  t.true(u.cpuSeconds > 0);
  t.true(u.peakRssMiB >= u.rssMiB && u.rssMiB > 0);
});
