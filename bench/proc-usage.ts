// What a process of the machine used, from Linux's /proc: CPU seconds (user + system, its own threads; not its
// children) and resident memory, current and peak (VmHWM: the high-water mark since the process started). The
// same reading for any process, whatever language it is written in, so controllers can be compared.
import { readFileSync } from 'node:fs';

export interface ProcUsage {
  cpuSeconds: number;
  rssMiB: number;
  peakRssMiB: number;
}

/** Clock ticks per second of /proc/<pid>/stat's utime and stime (sysconf(_SC_CLK_TCK): 100 on Linux). */
const clockTicks = 100;

/** utime + stime of a /proc/<pid>/stat line, in seconds (fields 14 and 15; the command name may hold spaces). */
export function cpuSecondsOfStat(stat: string): number {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 (state): utime is field 14, stime field 15.
  return (Number(fields[11]) + Number(fields[12])) / clockTicks;
}

/** A `<name>: <n> kB` line of /proc/<pid>/status, in MiB. */
export function statusMiB(status: string, name: string): number {
  const kb = new RegExp(`^${name}:\\s+(\\d+) kB$`, 'm').exec(status)?.[1];
  if (kb === undefined) throw new Error(`/proc status has no ${name}`);
  return Math.round((Number(kb) / 1024) * 10) / 10;
}

export function procUsage(pid: number): ProcUsage {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return {
    cpuSeconds: cpuSecondsOfStat(readFileSync(`/proc/${pid}/stat`, 'utf8')),
    rssMiB: statusMiB(status, 'VmRSS'),
    peakRssMiB: statusMiB(status, 'VmHWM'),
  };
}
