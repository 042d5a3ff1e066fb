/**
 * Leader election against a real API server, as a ServiceAccount allowed only get/create/update on Leases:
 * exactly one of two candidates leads; a released lease is taken over at once; a lease whose holder died is
 * taken over only after it expired; a leader cut off from the API stops leading on its own before anyone else
 * can take over. Waits on events and API state, never on guessed sleeps.
 */
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import test, { type ExecutionContext } from 'ava';
import { KubeConfig } from '@kubernetes/client-node';
import { createLeaseClient, LeaderElector, type LeaseRecord, type StoppedLeadingReason } from '../controller/leader-election.js';
import { showLogsOnFailure } from './harness/ava-fixtures.js';
import { waitFor } from './harness/wait.js';
import { useFileKubeCluster } from './fixtures/file-kube-cluster.js';

const namespace = 'election';
const serviceAccount = 'elector';
let token = '';

const kube = useFileKubeCluster({
  prepare: async (cluster) => {
    // The least a replica needs for leader election: read, create and update Leases in its namespace.
    await cluster.kubectlOk(['apply', '-f', '-'], {
      input: `
apiVersion: v1
kind: Namespace
metadata: {name: ${namespace}}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: ${serviceAccount}, namespace: ${namespace}}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: leader-election, namespace: ${namespace}}
rules:
  - apiGroups: [coordination.k8s.io]
    resources: [leases]
    verbs: [get, create, update]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: leader-election, namespace: ${namespace}}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: leader-election}
subjects:
  - {kind: ServiceAccount, name: ${serviceAccount}, namespace: ${namespace}}
`,
    });
    token = await cluster.serviceAccountToken(namespace, serviceAccount);
  },
});

interface Candidate {
  elector: LeaderElector;
  identity: string;
  stopped: StoppedLeadingReason[];
  startedCount: number;
}

interface Durations {
  leaseDurationSeconds: number;
  renewDeadlineSeconds: number;
  retryPeriodSeconds: number;
}

const short: Durations = { leaseDurationSeconds: 3, renewDeadlineSeconds: 2, retryPeriodSeconds: 0.5 };

/** Candidates on one lease; fails the test if two of them ever consider themselves leader at the same time. */
function candidates(
  t: ExecutionContext,
  lease: string,
  identities: string[],
  durations: Durations,
  server?: Record<string, string>,
): Candidate[] {
  const all: Candidate[] = identities.map((identity) => {
    const kc = kube.kubeConfig(token, server?.[identity]);
    const client = createLeaseClient(kc, { namespace, name: lease, timeoutMs: 1000 });
    const elector = new LeaderElector(client, { namespace, name: lease, identity, ...durations });
    return { elector, identity, stopped: [], startedCount: 0 };
  });
  for (const c of all) {
    c.elector.on('started-leading', () => {
      c.startedCount += 1;
      const others = all.filter((o) => o !== c && o.elector.isLeader()).map((o) => o.identity);
      if (others.length > 0) t.fail(`${c.identity} started leading while ${others.join(', ')} still led`);
    });
    c.elector.on('stopped-leading', (reason) => c.stopped.push(reason));
  }
  t.teardown(() => Promise.all(all.map((c) => c.elector.stop())).then(() => undefined));
  showLogsOnFailure(t, 'Kubernetes', kube.cluster);
  return all;
}

async function readLease(name: string): Promise<LeaseRecord> {
  const admin = new KubeConfig();
  admin.loadFromString(kube.cluster.kubeconfig({ token: kube.cluster.adminToken }));
  const lease = await createLeaseClient(admin, { namespace, name, timeoutMs: 5000 }).read();
  if (!lease) throw new Error(`lease ${name} does not exist`);
  return lease.record;
}

async function theLeader(all: Candidate[]): Promise<Candidate> {
  return waitFor(() => all.find((c) => c.elector.isLeader()), { description: 'one candidate to lead', timeoutMs: 30_000 });
}

test('exactly one of two candidates leads, and the lease names it', async (t) => {
  const all = candidates(t, 'one-leader', ['alpha', 'beta'], short);
  for (const c of all) c.elector.start();
  const leader = await theLeader(all);
  // Let several retry periods pass (observed through the lease's renewals) and check nobody else took over.
  const first = await readLease('one-leader');
  await waitFor(async () => ((await readLease('one-leader')).renewTime ?? 0) > (first.renewTime ?? 0) + 1500, {
    description: 'the leader to renew several times',
    timeoutMs: 30_000,
  });
  const lease = await readLease('one-leader');
  t.is(lease.holderIdentity, leader.identity);
  t.is(lease.leaseDurationSeconds, 3);
  t.is(lease.leaseTransitions, first.leaseTransitions, 'renewals are not transitions');
  t.deepEqual(
    all.map((c) => c.elector.isLeader()),
    all.map((c) => c === leader),
  );
  t.is(all.reduce((n, c) => n + c.startedCount, 0), 1);
});

test('a leader that stops with release hands the lease over without waiting for it to expire', async (t) => {
  // A lease this long cannot expire during the test: a takeover can only come from the release.
  const all = candidates(t, 'release', ['alpha', 'beta'], { leaseDurationSeconds: 600, renewDeadlineSeconds: 2, retryPeriodSeconds: 0.5 });
  for (const c of all) c.elector.start();
  const leader = await theLeader(all);
  const successor = all.find((c) => c !== leader)!;
  const before = await readLease('release');

  await leader.elector.stop({ release: true });
  t.deepEqual(leader.stopped, ['stopped']);
  t.false(leader.elector.isLeader());
  await waitFor(() => successor.elector.isLeader(), { description: 'the successor to lead after the release', timeoutMs: 60_000 });

  const after = await readLease('release');
  t.is(after.holderIdentity, successor.identity);
  t.is(after.leaseTransitions, (before.leaseTransitions ?? 0) + 1);
  t.is(after.leaseDurationSeconds, 600);
});

test('when the leader dies without releasing, the other takes over only after the lease expired', async (t) => {
  const all = candidates(t, 'expiry', ['alpha', 'beta'], short);
  for (const c of all) c.elector.start();
  const leader = await theLeader(all);
  const successor = all.find((c) => c !== leader)!;

  // "Dies": its timers stop and it writes nothing more, the lease stays as it last renewed it.
  await leader.elector.stop();
  const last = await readLease('expiry');
  t.is(last.holderIdentity, leader.identity);
  await waitFor(() => successor.elector.isLeader(), { description: 'the other candidate to take over', timeoutMs: 60_000 });

  const after = await readLease('expiry');
  t.is(after.holderIdentity, successor.identity);
  t.is(after.leaseTransitions, (last.leaseTransitions ?? 0) + 1);
  // The successor acquired (acquireTime) only once the dead leader's renewal had expired.
  t.true((after.acquireTime ?? 0) > (last.renewTime ?? 0) + 3000, `acquired at ${after.acquireTime}, last renewal at ${last.renewTime}`);
});

test('a leader cut off from the API server stops leading before another candidate can take over', async (t) => {
  const proxy = await startTcpProxy(new URL(kube.cluster.server).port);
  t.teardown(() => proxy.close());
  const [cutOff, other] = candidates(t, 'partition', ['cut-off', 'other'], short, { 'cut-off': proxy.url });
  if (!cutOff || !other) throw new Error('expected two candidates');
  cutOff.elector.start();
  await waitFor(() => cutOff.elector.isLeader(), { description: 'the candidate behind the proxy to lead', timeoutMs: 30_000 });
  other.elector.start();

  const stoppedLeading = new Promise<StoppedLeadingReason>((resolve) => cutOff.elector.once('stopped-leading', resolve));
  proxy.cut(); // connections reset, new ones refused: like a network partition or a dead API server
  t.is(await stoppedLeading, 'renew-deadline-exceeded');
  t.false(cutOff.elector.isLeader());

  // The other candidate takes over after the expiry; the 'started-leading' handler checks there is no overlap.
  await waitFor(() => other.elector.isLeader(), { description: 'the other candidate to take over', timeoutMs: 60_000 });
  t.is((await readLease('partition')).holderIdentity, 'other');
  t.deepEqual(cutOff.stopped, ['renew-deadline-exceeded']);
});

interface TcpProxy {
  url: string;
  /** Destroys every connection and stops accepting new ones (the port is then refused). */
  cut(): void;
  close(): Promise<void>;
}

/** A loopback TCP forwarder to the API server, so one client can lose the network while others keep it. */
async function startTcpProxy(targetPort: string): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(Number(targetPort), '127.0.0.1');
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => undefined);
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const close = (): Promise<void> =>
    new Promise((resolve) => {
      for (const s of sockets) s.destroy();
      if (!server.listening) resolve();
      else server.close(() => resolve());
    });
  return {
    url: `https://127.0.0.1:${port}`,
    cut: () => void close(),
    close,
  };
}
