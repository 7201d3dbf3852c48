/**
 * The simulated controllers over the API server's in-process client (the default) and over HTTP
 * (`controllersClient: 'http'`) leave the cluster in the same state for the same workload: the same
 * objects with the same status, labels, owners, managedFields managers and Events, values that differ
 * from run to run (uids, times, addresses, random name suffixes) apart.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { KubeClient } from '../../../src/kube/client.js';
import type { KubeObject } from '../../../src/kube/object.js';
import { type TestCluster, startTestCluster } from '../../helpers/cluster.js';
import { until } from '../../helpers/wait.js';
import { deployment, hasCondition, st } from './harness.js';

const clusters: TestCluster[] = [];
afterAll(async () => {
  await Promise.all(clusters.map((c) => c.stop()));
});

// Where the scheduler puts a pod (the least loaded node) depends on timing too.
const VARYING = /(Time|Timestamp|At|IP|IPs|uid|resourceVersion|time|nodeName|containerID)$/;

/** Run-to-run values masked; pod names keep their owner's part (`web-<hash>-*`). */
function stable(value: unknown, key = ''): unknown {
  if (VARYING.test(key) && value !== undefined) return '*';
  if (typeof value === 'string') return value.replace(/^((?:web|batch)-(?:[a-z0-9]{8,10}-)?)[a-z0-9]{5}$/, '$1*').replace(/\b(\d{1,3}\.){3}\d{1,3}\b/g, 'A.D.D.R');
  if (Array.isArray(value)) return value.map((v) => stable(v)).sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = stable(v, k);
  return out;
}

async function snapshot(client: KubeClient, ns: string): Promise<Record<string, unknown>> {
  const kinds: [string, string][] = [['apps/v1', 'Deployment'], ['apps/v1', 'ReplicaSet'], ['v1', 'Pod'], ['batch/v1', 'Job'], ['v1', 'Service'], ['v1', 'Endpoints']];
  const out: Record<string, unknown> = {};
  for (const [apiVersion, kind] of kinds) {
    const items = (await client.list(apiVersion, kind, ns)).items;
    out[kind] = stable(items.map((o: KubeObject) => ({ ...o, metadata: { ...o.metadata, managedFields: o.metadata.managedFields?.map((m) => ({ manager: m.manager, operation: m.operation, subresource: m.subresource })) } })));
  }
  const events = (await client.list('v1', 'Event', ns)).items;
  out.Event = [...new Set(events.map((e) => `${String((e.involvedObject as { kind?: string }).kind)} ${String(e.reason)} ${String((e.source as { component?: string }).component)}`))].sort();
  return out;
}

async function run(mode: 'in-process' | 'http'): Promise<Record<string, unknown>> {
  const c = await startTestCluster({ controllers: true, controllersClient: mode, nodes: 2, timing: { podStartDelayMs: 10, readyDelayMs: 10 } });
  clusters.push(c);
  const client = c.inProcessClient();
  const ns = 'parity';
  await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  await client.create({ ...deployment('web', 2), metadata: { name: 'web', namespace: ns } }, { fieldManager: 'test' });
  await client.create({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: ns }, spec: { selector: { app: 'web' }, ports: [{ port: 80 }] } }, { fieldManager: 'test' });
  await client.create({
    apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'batch', namespace: ns },
    spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox:1.36' }] } } },
  }, { fieldManager: 'test' });
  const get = (apiVersion: string, kind: string, name: string): Promise<KubeObject | undefined> => client.get({ apiVersion, kind, namespace: ns, name });
  await until(async () => {
    const [web, job, endpoints] = await Promise.all([get('apps/v1', 'Deployment', 'web'), get('batch/v1', 'Job', 'batch'), get('v1', 'Endpoints', 'web')]);
    const addresses = ((endpoints?.subsets as { addresses?: unknown[] }[] | undefined) ?? []).flatMap((s) => s.addresses ?? []);
    const progressing = (st(web).conditions as { type: string; reason?: string }[] | undefined)?.find((x) => x.type === 'Progressing');
    return st(web).availableReplicas === 2 && progressing?.reason === 'NewReplicaSetAvailable' && hasCondition(job, 'Complete') && addresses.length === 2;
  }, 20_000, `${mode}: the workload settled`);
  return snapshot(client, ns);
}

describe('the controllers over the in-process client and over HTTP', () => {
  it('GIVEN a Deployment, a Service and a Job WHEN the controllers settle them either way THEN the cluster holds the same objects', async () => {
    const overHttp = await run('http');
    const inProcess = await run('in-process');
    expect(inProcess).toEqual(overHttp);
    // Not vacuous: pods with their managers, Events from both components.
    expect(JSON.stringify(overHttp)).toContain('"manager":"kubelet"');
    expect(overHttp.Event).toEqual(expect.arrayContaining(['Pod Scheduled default-scheduler', 'Deployment ScalingReplicaSet deployment-controller']));
  });
});
