/**
 * deploy/baton-agent.yaml and the Dockerfile: the manifests apply to the simulated API server with
 * kubectl (server-side), every BATON_* variable they set is one the agent reads, and every path the
 * Dockerfile copies or runs exists. (The image itself cannot be built on a machine without Docker;
 * its contents were assembled and run by hand, see docs/deploy.md.)
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { loadAll } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isRecord } from '../../src/kube/object.js';
import { startTestCluster, type TestCluster } from '../helpers/cluster.js';

const ROOT = process.cwd();
const MANIFEST = join(ROOT, 'deploy', 'baton-agent.yaml');

function sourcesText(dir: string): string {
  return readdirSync(dir).map((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourcesText(path) : name.endsWith('.ts') ? readFileSync(path, 'utf8') : '';
  }).join('\n');
}

type Doc = Record<string, unknown> & { kind: string; metadata: { name: string; namespace?: string } };
const docs = (): Doc[] => (loadAll(readFileSync(MANIFEST, 'utf8'))).filter((d): d is Doc => isRecord(d));

describe('deploy/baton-agent.yaml', () => {
  let cluster: TestCluster;
  beforeAll(async () => {
    cluster = await startTestCluster();
  });
  afterAll(async () => {
    await cluster.stop();
  });

  it('holds the namespace, service account, data volume, Deployment and Service (RBAC is deploy/rbac.yaml, never */*/*)', () => {
    expect(docs().map((d) => `${d.kind}/${d.metadata.name}`)).toEqual([
      'Namespace/baton-system', 'ServiceAccount/baton-agent',
      'PersistentVolumeClaim/baton-agent-data', 'Deployment/baton-agent', 'Service/baton-agent',
    ]);
  });

  it('sets only BATON_* variables the agent reads, and puts the data dir on the volume', () => {
    const deployment = docs().find((d) => d.kind === 'Deployment') as unknown as { spec: { template: { spec: { containers: { env: { name: string; value: string }[]; volumeMounts: { mountPath: string }[] }[] } } } };
    const container = deployment.spec.template.spec.containers[0]!;
    const read = sourcesText(join(ROOT, 'src'));
    for (const { name } of container.env.filter((e) => e.name.startsWith('BATON_'))) expect(read, name).toContain(`${name}`);
    const dataDir = container.env.find((e) => e.name === 'BATON_DATA_DIR')?.value ?? '';
    expect(container.volumeMounts.some((m) => dataDir.startsWith(`${m.mountPath}/`))).toBe(true);
    expect(container.env.find((e) => e.name === 'BATON_LISTEN')?.value).toBe('0.0.0.0:8080');
  });

  it('gives the first fetch of a large repository at least five minutes before liveness checks can restart the agent', () => {
    type Probe = { httpGet?: { path?: string; port?: string | number }; periodSeconds?: number; failureThreshold?: number };
    const deployment = docs().find((d) => d.kind === 'Deployment') as unknown as { spec: { template: { spec: { containers: { startupProbe?: Probe; livenessProbe?: Probe }[] } } } };
    const container = deployment.spec.template.spec.containers[0]!;
    const startup = container.startupProbe;
    expect(startup?.httpGet).toEqual({ path: '/healthz', port: 'http' });
    // Kubernetes defaults: periodSeconds 10, failureThreshold 3.
    expect((startup?.failureThreshold ?? 3) * (startup?.periodSeconds ?? 10)).toBeGreaterThanOrEqual(300);
    expect(container.livenessProbe?.httpGet?.path).toBe('/healthz');
  });

  it('applies to the API server with kubectl, server-side', async () => {
    const applied = await cluster.kubectl(['apply', '--server-side', '-f', MANIFEST, '-f', join(ROOT, 'deploy', 'rbac.yaml')]);
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
    const got = await cluster.kubectl(['get', 'deployment,serviceaccount,pvc,service', '-n', 'baton-system', '-o', 'name']);
    // Every namespace also has its `default` ServiceAccount, as on a real cluster.
    expect(got.stdout.trim().split('\n').sort()).toEqual(['deployment.apps/baton-agent', 'persistentvolumeclaim/baton-agent-data', 'service/baton-agent', 'serviceaccount/baton-agent', 'serviceaccount/default']);
    expect((await cluster.kubectl(['get', 'clusterrolebinding', 'baton-agent', '-o', 'jsonpath={.subjects[0].name}'])).stdout).toBe('baton-agent');
  });
});

describe('Dockerfile', () => {
  const text = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');

  it('copies only paths that exist, and runs bin/baton.js', () => {
    const copies = [...text.matchAll(/^COPY (?!--from)(.+) \S+$/gm)].flatMap((m) => (m[1] ?? '').split(/\s+/));
    expect(copies.length).toBeGreaterThan(3);
    for (const path of copies) expect(existsSync(join(ROOT, path)), path).toBe(true);
    expect(text).toMatch(/ENTRYPOINT \["node", "\/app\/bin\/baton\.js"\]/);
    expect(existsSync(join(ROOT, 'bin', 'baton.js'))).toBe(true);
  });

  it('uses the Node major version the project pins in engines', () => {
    const engines = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node;
    const major = /FROM node:(\d+)-/.exec(text)?.[1];
    expect(engines).toContain(`>=${major}.`);
  });
});

describe('deploy/baton-agent-shards.yaml', () => {
  const SHARDS = join(ROOT, 'deploy', 'baton-agent-shards.yaml');
  type Container = { env: { name: string; value: string }[]; volumeMounts: { mountPath: string; name: string }[] };
  type StatefulSet = { spec: { replicas: number; volumeClaimTemplates: { metadata: { name: string } }[]; template: { spec: { containers: Container[] } } } };
  const shardDocs = (): Doc[] => (loadAll(readFileSync(SHARDS, 'utf8'))).filter((d): d is Doc => isRecord(d));
  let cluster: TestCluster;
  beforeAll(async () => {
    cluster = await startTestCluster();
  });
  afterAll(async () => {
    await cluster.stop();
  });

  it('runs several replicas of one shard set, each with its own data volume, setting only BATON_* variables the agent reads', () => {
    const set = shardDocs().find((d) => d.kind === 'StatefulSet') as unknown as StatefulSet;
    expect(set.spec.replicas).toBeGreaterThan(1);
    const container = set.spec.template.spec.containers[0]!;
    expect(container.env.find((e) => e.name === 'BATON_SHARD_SET')?.value).toMatch(/^[a-z0-9-]+$/);
    const read = sourcesText(join(ROOT, 'src'));
    for (const { name } of container.env.filter((e) => e.name.startsWith('BATON_'))) expect(read, name).toContain(name);
    const dataDir = container.env.find((e) => e.name === 'BATON_DATA_DIR')?.value ?? '';
    const mount = container.volumeMounts.find((m) => dataDir.startsWith(`${m.mountPath}/`));
    expect(set.spec.volumeClaimTemplates.map((t) => t.metadata.name)).toContain(mount?.name);
  });

  it('applies with deploy/rbac.yaml, whose Role lets members list and delete member Leases', async () => {
    const applied = await cluster.kubectl(['apply', '--server-side', '-f', SHARDS, '-f', join(ROOT, 'deploy', 'rbac.yaml')]);
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
    const rules = (await cluster.kubectl(['get', 'role', 'baton-agent-self', '-n', 'baton-system', '-o', 'jsonpath={.rules[?(@.resources[0]=="leases")].verbs}'])).stdout;
    for (const verb of ['create', 'delete', 'get', 'list', 'update']) expect(rules).toContain(verb);
    expect((await cluster.kubectl(['get', 'statefulset', 'baton-agent', '-n', 'baton-system', '-o', 'jsonpath={.spec.replicas}'])).stdout).toBe('3');
  });
});
