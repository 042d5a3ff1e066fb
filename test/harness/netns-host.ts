/**
 * Test hosts: network namespaces joined to the root namespace by a veth pair on their own /30 of
 * 10.250.0.0/16. They give e2e tests backend addresses that are not loopback (kube-apiserver refuses
 * 127.0.0.0/8 and ::1 in EndpointSlices) yet belong to this test run only, and processes started in them
 * (echo backends) are reachable from the root namespace at the host's address and nowhere else.
 *
 * Needs root (or CAP_SYS_ADMIN + CAP_NET_ADMIN) and iproute2's `ip`; without them createTestHost() throws a
 * TestHostsUnavailableError that says so.
 */
import { removeOnExit, cleanupStaleTestHosts } from './netns-cleanup.js';
import { ipFailure, runCommand, runIp, runIpOk, TestHostsUnavailableError, type CommandResult } from './netns-ip.js';
import { planTestHost, type TestHostPlan } from './netns-naming.js';
import { startRemoteEcho, type RemoteEcho, type RemoteEchoOptions } from './netns-remote-echo.js';

export { cleanupStaleTestHosts } from './netns-cleanup.js';
export { TestHostsUnavailableError, type CommandResult } from './netns-ip.js';
export type { RemoteEcho, RemoteEchoOptions } from './netns-remote-echo.js';

export interface TestHost {
  /** The network namespace's name, `ei-<pid>-<n>`. */
  readonly name: string;
  /** The namespace's address (e.g. 10.250.3.2): put it in EndpointSlices; backends listen on it. */
  readonly address: string;
  /** The root namespace's end of the link (e.g. 10.250.3.1), the source of traffic to `address`. */
  readonly hostAddress: string;
  /** The veth end in the root namespace (removed by destroy()). */
  readonly hostInterface: string;
  /** Starts an echo backend inside the namespace on `address` (several may share a host on different ports). */
  startEcho(opts: RemoteEchoOptions): Promise<RemoteEcho>;
  /** Runs a command inside the namespace; resolves with its exit code and output (a non-zero code does not throw). */
  exec(command: string, args?: readonly string[]): Promise<CommandResult>;
  /** Stops the backends and removes the namespace, the veth pair and its route. Idempotent. */
  destroy(): Promise<void>;
}

/** Attempts before giving up when names or subnets are taken (by leftovers or by parallel test processes). */
const MAX_ATTEMPTS = 32;
let nextCounter = 0;
let staleCleanup: Promise<unknown> | undefined;

/**
 * Creates a network namespace with a veth pair: `hostAddress` in the root namespace, `address` inside, both
 * up, loopback up inside. Names and the /30 come from this pid and a counter; when one is already taken (ip
 * fails: the namespace, link or route exists), the next counter is tried.
 */
export async function createTestHost(): Promise<TestHost> {
  // Once per process: a crashed earlier run must not keep holding names and subnets.
  staleCleanup ??= cleanupStaleTestHosts();
  await staleCleanup;
  const failures: string[] = [];
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
    const plan = planTestHost(process.pid, nextCounter);
    nextCounter += 1;
    const failure = await tryCreate(plan);
    if (failure === undefined) return makeHost(plan);
    failures.push(`${plan.namespace} ${plan.subnet}: ${failure.message}`);
  }
  throw new Error(`Could not create a test host after ${MAX_ATTEMPTS} attempts:\n${failures.join('\n')}`);
}

/** Creates everything in `plan`; on failure removes what it made and returns why (or throws if hopeless). */
async function tryCreate(plan: TestHostPlan): Promise<Error | undefined> {
  const ns = plan.namespace;
  const created = await runIp(['netns', 'add', ns]);
  if (created.code !== 0) return hopelessOr(ipFailure(['netns', 'add', ns], created));
  const steps: string[][] = [
    ['link', 'add', plan.hostInterface, 'type', 'veth', 'peer', 'name', plan.namespaceInterface, 'netns', ns],
    ['link', 'set', plan.hostInterface, 'up'],
    ['address', 'add', `${plan.hostAddress}/30`, 'dev', plan.hostInterface, 'noprefixroute'],
    // The claim on the /30: adding a route to a prefix that already has one fails ("File exists"), whereas a
    // second interface with an address in the same subnet would be accepted silently.
    ['route', 'add', plan.subnet, 'dev', plan.hostInterface, 'src', plan.hostAddress],
    ['-n', ns, 'link', 'set', 'lo', 'up'],
    ['-n', ns, 'link', 'set', plan.namespaceInterface, 'up'],
    ['-n', ns, 'address', 'add', `${plan.address}/30`, 'dev', plan.namespaceInterface],
  ];
  for (const args of steps) {
    const result = await runIp(args);
    if (result.code !== 0) {
      await removeHost(plan.hostInterface, ns);
      return hopelessOr(ipFailure(args, result));
    }
  }
  return undefined;
}

/** Missing privileges will not get better with another name: throw those, return the rest for a retry. */
function hopelessOr(error: Error): Error {
  if (error instanceof TestHostsUnavailableError) throw error;
  return error;
}

async function removeHost(hostInterface: string, namespace: string): Promise<void> {
  await runIp(['link', 'delete', hostInterface]);
  await runIp(['netns', 'delete', namespace]);
}

function makeHost(plan: TestHostPlan): TestHost {
  const echoes = new Map<number, RemoteEcho>();
  const starting = new Set<Promise<RemoteEcho>>();
  const unregister = removeOnExit({
    namespace: plan.namespace,
    hostInterface: plan.hostInterface,
    pids: () => echoes.keys(),
  });
  let destroyed: Promise<void> | undefined;

  return {
    name: plan.namespace,
    address: plan.address,
    hostAddress: plan.hostAddress,
    hostInterface: plan.hostInterface,
    async startEcho(opts) {
      if (destroyed) throw new Error(`test host ${plan.namespace} is destroyed`);
      const pending = startRemoteEcho(plan.namespace, plan.address, opts, (pid) => echoes.delete(pid));
      starting.add(pending);
      try {
        const echo = await pending;
        if (destroyed) {
          // destroy() began while it was starting; do not leave it running in a namespace that is going away.
          await echo.stop();
          throw new Error(`test host ${plan.namespace} was destroyed while ${opts.service} was starting`);
        }
        echoes.set(echo.pid, echo);
        return echo;
      } finally {
        starting.delete(pending);
      }
    },
    exec(command, args = []) {
      return runCommand('ip', ['netns', 'exec', plan.namespace, command, ...args]);
    },
    destroy() {
      destroyed ??= (async () => {
        await Promise.allSettled([...starting]);
        await Promise.all([...echoes.values()].map((echo) => echo.stop()));
        await runIpOk(['link', 'delete', plan.hostInterface]);
        await runIpOk(['netns', 'delete', plan.namespace]);
        unregister();
      })();
      return destroyed;
    },
  };
}
