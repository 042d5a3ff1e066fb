// What the node's teardown check judges (kube-node-host-state.ts): which processes are the node's, and what counts
// as left behind. Pure or read-only: runs without a node.
import { spawn } from 'node:child_process';
import test from 'ava';
import { hostLeftovers, nodeProcesses, type HostState } from './kube-node-host-state.js';
import { NODE_BRIDGE, NODE_DATA_DIR, POD_BRIDGE } from './kube-node-layout.js';
import { waitFor } from './wait.js';

const empty: HostState = { processes: [], mounts: [], links: [], nftTables: [], nodeChains: [], cgroups: [], paths: [], sysctls: {} };

test('a host like before has no leftovers; what was there before the node is not the node\'s', (t) => {
  const before: HostState = { ...empty, links: ['eth0', 'lo'], nftTables: ['inet mine'], mounts: ['/proc'], sysctls: { 'net/ipv4/ip_forward': '0' } };
  t.deepEqual(hostLeftovers(before, before, []), []);
  // Other tests' links come and go: only the node's bridges and the pods' veths count.
  t.deepEqual(hostLeftovers(before, { ...before, links: ['eth0', 'lo', 'ei123h0'] }, ['veth1234']), []);
});

test('every kind of leftover is reported', (t) => {
  const after: HostState = {
    processes: ['42 /var/lib/envoy-ingress-node/x'],
    mounts: [`${NODE_DATA_DIR}/containerd/rootfs`],
    links: [NODE_BRIDGE, POD_BRIDGE, 'veth1234', 'eth0'],
    nftTables: ['ip kube-proxy'],
    nodeChains: ['KUBE-FIREWALL'],
    cgroups: ['/sys/fs/cgroup/memory/kubepods'],
    paths: ['/var/lib/kubelet'],
    sysctls: { 'net/ipv4/ip_forward': '1' },
  };
  t.deepEqual(hostLeftovers({ ...empty, links: ['eth0'], sysctls: { 'net/ipv4/ip_forward': '0' } }, after, ['veth1234']), [
    'process: 42 /var/lib/envoy-ingress-node/x',
    `mount: ${NODE_DATA_DIR}/containerd/rootfs`,
    `link: ${NODE_BRIDGE}`,
    `link: ${POD_BRIDGE}`,
    'link: veth1234',
    'nftables table: ip kube-proxy',
    'netfilter chain: KUBE-FIREWALL',
    'cgroup: /sys/fs/cgroup/memory/kubepods',
    'path: /var/lib/kubelet',
    'sysctl: net/ipv4/ip_forward is 1, was 0',
  ]);
});

test('the node\'s processes are those naming its directories, not others running the same binaries', async (t) => {
  // `sh -c CMD NAME` puts NAME in the command line: one names the node's directory, one does not. (A directory of
  // this test's own: a real node's teardown check may run at the same time.)
  const nodeDir = `/tmp/not-the-node-${process.pid}`;
  const ours = spawn('sh', ['-c', 'sleep 30; true', `${nodeDir}/etcd`], { stdio: 'ignore' });
  const theirs = spawn('sh', ['-c', 'sleep 30; true', `${nodeDir}-other/etcd-data`], { stdio: 'ignore' });
  t.teardown(() => {
    ours.kill('SIGKILL');
    theirs.kill('SIGKILL');
  });
  const pids = (): number[] => nodeProcesses([nodeDir]).map((line) => Number(line.split(' ')[0]));
  await waitFor(() => pids().includes(ours.pid!), { description: 'the process naming the node directory found' });
  t.false(pids().includes(theirs.pid!));
});
