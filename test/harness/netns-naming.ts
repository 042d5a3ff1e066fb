/**
 * Names and addresses of test hosts, derived from the creating process's pid and a per-process counter so that
 * test files running in parallel (one process each) do not pick the same ones, and so that leftovers of a
 * crashed process can be recognised by a pid that no longer exists. Pure: no I/O.
 */

/** Every test host namespace is named `ei-<pid>-<counter>`. */
export const TEST_HOST_NAMESPACE_PREFIX = 'ei-';

/** Linux limits interface names to 15 characters (IFNAMSIZ - 1). */
export const MAX_INTERFACE_NAME_LENGTH = 15;

/** Test hosts take /30 subnets of 10.250.0.0/16: 16384 of them. */
const SUBNETS = 16_384;

export interface TestHostPlan {
  /** Network namespace name. */
  namespace: string;
  /** The veth end in the root namespace. */
  hostInterface: string;
  /** The veth end inside the namespace. */
  namespaceInterface: string;
  /** The /30 in CIDR form, e.g. 10.250.3.4/30. */
  subnet: string;
  /** The root namespace's end, first usable address of the /30. */
  hostAddress: string;
  /** The namespace's end, second usable address of the /30. */
  address: string;
}

export interface TestHostOwner {
  pid: number;
  counter: number;
}

/**
 * Names and /30 for the `counter`th test host attempt of process `pid`. The third octet is the pid modulo 256
 * and the fourth steps by 4 per counter, so one process's hosts are adjacent and easy to attribute; processes
 * whose pids are 256 apart collide, which the creator detects (the route already exists) and retries.
 */
export function planTestHost(pid: number, counter: number): TestHostPlan {
  if (!Number.isSafeInteger(pid) || pid <= 0) throw new RangeError(`invalid pid ${pid}`);
  if (!Number.isSafeInteger(counter) || counter < 0) throw new RangeError(`invalid counter ${counter}`);
  const hostInterface = `ei${pid}h${counter}`;
  const namespaceInterface = `ei${pid}n${counter}`;
  if (hostInterface.length > MAX_INTERFACE_NAME_LENGTH) {
    throw new RangeError(`test host interface name ${hostInterface} is longer than ${MAX_INTERFACE_NAME_LENGTH} characters`);
  }
  const index = (pid * 64 + counter) % SUBNETS;
  const base = `10.250.${index >> 6}`;
  const first = (index & 63) * 4;
  return {
    namespace: `${TEST_HOST_NAMESPACE_PREFIX}${pid}-${counter}`,
    hostInterface,
    namespaceInterface,
    subnet: `${base}.${first}/30`,
    hostAddress: `${base}.${first + 1}`,
    address: `${base}.${first + 2}`,
  };
}

/** The pid and counter of a test host namespace name, or undefined for any other name. */
export function parseTestHostNamespace(name: string): TestHostOwner | undefined {
  const match = /^ei-(\d+)-(\d+)$/.exec(name);
  return match ? { pid: Number(match[1]), counter: Number(match[2]) } : undefined;
}

/** The pid and counter of a test host's root-namespace veth name, or undefined for any other name. */
export function parseTestHostInterface(name: string): TestHostOwner | undefined {
  const match = /^ei(\d+)h(\d+)$/.exec(name);
  return match ? { pid: Number(match[1]), counter: Number(match[2]) } : undefined;
}
