/**
 * What the catalog's plans do, as specifications: GIVEN a framework and values, WHEN a plan renders,
 * THEN the batches hold the objects, order and settings the framework's README promises.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Renderer, type Framework, type RenderedPlan } from '../../src/render/index.js';
import type { KubeObject } from '../../src/kube/object.js';
import { actionsOf, at, catalogVersions, containersOf, ids, loadCatalogFramework, objectsOf, render, renderOk } from './support.js';

const renderer = new Renderer();
afterAll(() => renderer.close());

const frameworks = new Map<string, Framework>();
beforeAll(async () => {
  for (const v of catalogVersions()) frameworks.set(v.label, await loadCatalogFramework(v));
});
function fw(label: string): Framework {
  const f = frameworks.get(label);
  if (!f) throw new Error(`no catalog framework ${label}`);
  return f;
}

function configData(plan: RenderedPlan, name: string, key: string): string {
  const cm = objectsOf(plan, 'ConfigMap').find((o) => o.metadata.name === name);
  return String(at(cm, ['data', key]));
}
function envOf(obj: KubeObject | undefined): Record<string, unknown> {
  const [container] = containersOf((at(obj, ['spec', 'template', 'spec']) ?? {}) as Record<string, unknown>);
  const env = Array.isArray(container?.env) ? (container.env as { name: string; value?: string; valueFrom?: unknown }[]) : [];
  return Object.fromEntries(env.map((e) => [e.name, e.value ?? e.valueFrom]));
}
function find(plan: RenderedPlan, kind: string, name: string, phase?: string): KubeObject | undefined {
  return actionsOf(plan).find((a) => a.object.kind === kind && a.object.metadata.name === name && (phase === undefined || a.phase === phase))?.object;
}

describe('Jobs are re-run by deleting the previous Job first (Jobs are immutable)', () => {
  const jobPlans = [
    ['zookeeper 1.0.0', 'deploy'], ['zookeeper 1.0.0', 'update'], ['zookeeper 1.0.0', 'validate'],
    ['redis 1.0.0', 'backup'], ['redis 1.0.0', 'restore'], ['redis 1.1.0', 'backup'], ['redis 1.1.0', 'upgrade'], ['redis 1.1.0', 'restore'],
    ['postgresql 1.0.0', 'backup'], ['postgresql 1.0.0', 'restore'],
  ] as const;
  it.each(jobPlans)('%s plan %s deletes each Job in an earlier step than the one that applies it', async (label, plan) => {
    const rendered = await renderOk(renderer, { framework: fw(label), plan });
    const actions = actionsOf(rendered);
    const stepIndex = (i: number): string => `${actions[i]!.phase}/${actions[i]!.step}`;
    const applied = actions.flatMap((a, i) => (a.action === 'apply' && a.object.kind === 'Job' ? [i] : []));
    expect(applied.length).toBeGreaterThan(0);
    for (const i of applied) {
      const name = actions[i]!.object.metadata.name;
      const deleted = actions.findIndex((a) => a.action === 'delete' && a.object.kind === 'Job' && a.object.metadata.name === name);
      expect(deleted, `Job ${String(name)}`).toBeGreaterThanOrEqual(0);
      expect(deleted).toBeLessThan(i);
      expect(stepIndex(deleted)).not.toBe(stepIndex(i));
    }
  });
});

describe('the backup volume', () => {
  const cases = ['redis 1.0.0', 'redis 1.1.0', 'postgresql 1.0.0'].flatMap((label) => ['deploy', 'update'].map((plan) => [label, plan] as const));
  it.each(cases)('%s %s claims it in the same batch as a Job that writes to it, so WaitForFirstConsumer classes bind', async (label, plan) => {
    const rendered = await renderOk(renderer, { framework: fw(label), plan });
    const step = rendered.phases.flatMap((p) => p.steps).find((s) => s.actions.some((a) => a.object.kind === 'PersistentVolumeClaim'));
    expect(step?.actions.map((a) => `${a.action} ${a.object.kind}/${a.object.metadata.name ?? ''}`)).toEqual(['apply PersistentVolumeClaim/demo-backups', 'apply Job/demo-backup-volume']);
    const volumes = at(step?.actions[1]?.object, ['spec', 'template', 'spec', 'volumes']);
    expect(volumes).toEqual([{ name: 'backups', persistentVolumeClaim: { claimName: 'demo-backups' } }]);
  });
});

describe('ZooKeeper', () => {
  it.each([1, 3, 5])('lists %i servers in zoo.cfg by their stable DNS names, ids from 1', async (replicas) => {
    const plan = await renderOk(renderer, { framework: fw('zookeeper 1.0.0'), plan: 'deploy', values: { REPLICAS: replicas }, instance: { name: 'zk', namespace: 'platform' } });
    const servers = configData(plan, 'zk-config', 'zoo.cfg').split('\n').filter((l) => l.startsWith('server.'));
    expect(servers).toEqual(Array.from({ length: replicas }, (_, i) => `server.${i + 1}=zk-${i}.zk-headless.platform.svc.cluster.local:2888:3888;2181`));
    expect(at(find(plan, 'StatefulSet', 'zk'), ['spec', 'replicas'])).toBe(replicas);
  });

  it('ends deploy with a validation phase whose Job checks as many servers as it deploys', async () => {
    const plan = await renderOk(renderer, { framework: fw('zookeeper 1.0.0'), plan: 'deploy', values: { REPLICAS: 5 } });
    expect(plan.phases.map((p) => p.name)).toEqual(['ensemble', 'validate']);
    const job = find(plan, 'Job', 'demo-validate', 'validate');
    expect(envOf(job)).toMatchObject({ REPLICAS: '5', STATEFULSET: 'demo', HEADLESS: 'demo-headless.catalog.svc.cluster.local' });
  });

  it.each([
    [false, 'delete'],
    [true, 'apply'],
  ] as const)('with METRICS_ENABLED %s, the metrics Service toggle renders as %s', async (enabled, action) => {
    const plan = await renderOk(renderer, { framework: fw('zookeeper 1.0.0'), plan: 'deploy', values: { METRICS_ENABLED: enabled } });
    expect(actionsOf(plan).find((a) => a.object.metadata.name === 'demo-metrics')?.action).toBe(action);
    expect(configData(plan, 'demo-config', 'zoo.cfg').includes('PrometheusMetricsProvider')).toBe(enabled);
  });
});

describe('Redis', () => {
  it.each(['redis 1.0.0', 'redis 1.1.0'])('%s update restarts the primary before the replicas, so a new PASSWORD never locks replicas out', async (label) => {
    const plan = await renderOk(renderer, { framework: fw(label), plan: 'update' });
    expect(ids(objectsOf(plan, 'StatefulSet'))).toEqual(['StatefulSet/demo-primary', 'StatefulSet/demo-replica']);
  });

  it('upgrades from 1.0.0 with a safety backup, then replicas, then the primary, on Redis 7.4', async () => {
    const plan = await renderOk(renderer, { framework: fw('redis 1.1.0'), plan: 'upgrade' });
    expect(plan.phases.map((p) => p.name)).toEqual(['safety-backup', 'prepare', 'servers']);
    const order = ids(objectsOf(plan).filter((o) => o.kind === 'Job' || o.kind === 'StatefulSet'));
    expect(order).toEqual(['Job/demo-backup', 'StatefulSet/demo-replica', 'StatefulSet/demo-primary', 'Job/demo-backup-volume']);
    const [container] = containersOf(at(find(plan, 'StatefulSet', 'demo-primary'), ['spec', 'template', 'spec']) as Record<string, unknown>);
    expect(container?.image).toBe('redis:7.4.2');
  });

  it('keeps the StatefulSet selectors of 1.0.0 in 1.1.0 (selectors are immutable, an upgrade must not change them)', async () => {
    const selectors = async (label: string): Promise<unknown[]> =>
      objectsOf(await renderOk(renderer, { framework: fw(label), plan: 'deploy' }), 'StatefulSet').map((s) => at(s, ['spec', 'selector']));
    expect(await selectors('redis 1.1.0')).toEqual(await selectors('redis 1.0.0'));
  });

  it('restores offline: stops both StatefulSets, copies the file into the primary volume, starts the primary first', async () => {
    const plan = await renderOk(renderer, { framework: fw('redis 1.0.0'), plan: 'restore', values: { REPLICAS: 2 }, args: { BACKUP_NAME: 'demo-20260101T020000Z.rdb' } });
    const sts = actionsOf(plan).filter((a) => a.object.kind === 'StatefulSet').map((a) => `${a.phase}: ${a.object.metadata.name ?? ''} x${String(at(a.object, ['spec', 'replicas']))}`);
    expect(sts).toEqual(['stop: demo-replica x0', 'stop: demo-primary x0', 'start: demo-primary x1', 'start: demo-replica x2']);
    const job = find(plan, 'Job', 'demo-restore', 'copy');
    expect(envOf(job)).toMatchObject({ BACKUP_NAME: 'demo-20260101T020000Z.rdb' });
    const claims = (at(job, ['spec', 'template', 'spec', 'volumes']) as { persistentVolumeClaim?: { claimName: string } }[]).flatMap((v) => (v.persistentVolumeClaim ? [v.persistentVolumeClaim.claimName] : []));
    expect(claims).toEqual(['data-demo-primary-0', 'demo-backups']);
  });

  it.each(['redis 1.0.0', 'redis 1.1.0'])('%s restore re-applies the StatefulSets but not the PDB, which stays in the deploy/update family for pruning', async (label) => {
    const plan = await renderOk(renderer, { framework: fw(label), plan: 'restore', values: { REPLICAS: 3 } });
    expect(objectsOf(plan, 'PodDisruptionBudget')).toEqual([]);
    expect(objectsOf(plan, 'StatefulSet')).toHaveLength(4);
  });

  it.each(['redis 1.0.0', 'redis 1.1.0'])('%s restore first checks the backup exists, without mounting the data volume, before stopping anything', async (label) => {
    const plan = await renderOk(renderer, { framework: fw(label), plan: 'restore', args: { BACKUP_NAME: 'x.rdb' } });
    expect(plan.phases.map((p) => p.name)).toEqual(['check', 'stop', 'copy', 'start']);
    const check = find(plan, 'Job', 'demo-restore-check', 'check');
    expect(envOf(check)).toEqual({ BACKUP_NAME: 'x.rdb', CHECK_ONLY: '1' });
    expect(JSON.stringify(at(check, ['spec', 'template', 'spec', 'volumes']))).not.toContain('data-demo-primary-0');
  });

  it.each([
    [0, false],
    [1, false],
    [2, true],
  ] as const)('with %i replicas, renders a replica PodDisruptionBudget: %s', async (replicas, present) => {
    const plan = await renderOk(renderer, { framework: fw('redis 1.0.0'), plan: 'deploy', values: { REPLICAS: replicas } });
    expect(ids(objectsOf(plan, 'PodDisruptionBudget'))).toEqual(present ? ['PodDisruptionBudget/demo-replicas'] : []);
  });

  it.each([
    [false, 'delete', 1],
    [true, 'apply', 2],
  ] as const)('1.1.0 with METRICS_ENABLED %s renders the metrics Service as %s and %i containers per server', async (enabled, action, containers) => {
    const plan = await renderOk(renderer, { framework: fw('redis 1.1.0'), plan: 'deploy', values: { METRICS_ENABLED: enabled } });
    expect(actionsOf(plan).find((a) => a.object.metadata.name === 'demo-metrics')?.action).toBe(action);
    expect(containersOf(at(find(plan, 'StatefulSet', 'demo-primary'), ['spec', 'template', 'spec']) as Record<string, unknown>)).toHaveLength(containers);
  });

  it('turns RDB snapshots off with an empty SAVE and writes the pairs unquoted otherwise', async () => {
    const off = await renderOk(renderer, { framework: fw('redis 1.0.0'), plan: 'deploy', values: { SAVE: '' } });
    const on = await renderOk(renderer, { framework: fw('redis 1.0.0'), plan: 'deploy', values: { SAVE: '900 1 300 10' } });
    expect(configData(off, 'demo-config', 'redis.conf')).toContain('save ""\n');
    expect(configData(on, 'demo-config', 'redis.conf')).toContain('save 900 1 300 10\n');
  });
});

describe('PostgreSQL', () => {
  it('cleanup only deletes: the backup Jobs and the backup volume', async () => {
    const plan = await renderOk(renderer, { framework: fw('postgresql 1.0.0'), plan: 'cleanup' });
    expect(actionsOf(plan).map((a) => `${a.action} ${a.object.kind}/${a.object.metadata.name ?? ''}`).sort()).toEqual([
      'delete Job/demo-backup',
      'delete Job/demo-backup-volume',
      'delete Job/demo-restore',
      'delete PersistentVolumeClaim/demo-backups',
    ]);
  });

  it('backs up DATABASE as USERNAME through the client Service with pg_dump settings from parameters', async () => {
    const plan = await renderOk(renderer, { framework: fw('postgresql 1.0.0'), plan: 'backup', values: { DATABASE: 'orders', USERNAME: 'shop', BACKUP_RETAIN: 3 } });
    expect(envOf(find(plan, 'Job', 'demo-backup'))).toMatchObject({ PGHOST: 'demo', PGDATABASE: 'orders', PGUSER: 'shop', BACKUP_RETAIN: '3', BACKUP_COMPRESSION: '6' });
  });

  it('restores latest.dump when no BACKUP_NAME argument is given', async () => {
    const plan = await renderOk(renderer, { framework: fw('postgresql 1.0.0'), plan: 'restore' });
    expect(envOf(find(plan, 'Job', 'demo-restore'))).toMatchObject({ BACKUP_NAME: 'latest.dump' });
  });

  it('writes EXTRA_CONFIG after the built-in settings, quoting strings as postgresql.conf expects', async () => {
    const plan = await renderOk(renderer, { framework: fw('postgresql 1.0.0'), plan: 'deploy', values: { EXTRA_CONFIG: { search_path: "app, 'public'", jit: false, random_page_cost: 1.1 } } });
    expect(configData(plan, 'demo-config', 'postgresql.conf')).toMatch(/max_connections = 100\n[\s\S]*search_path = 'app, ''public'''\njit = false\nrandom_page_cost = 1.1\n$/);
  });

  it('refuses an EXTRA_CONFIG key that is not a setting name', async () => {
    const result = await render(renderer, { framework: fw('postgresql 1.0.0'), plan: 'deploy', values: { EXTRA_CONFIG: { 'x = 1\nshared_preload_libraries': 'evil' } } });
    expect(result.ok).toBe(false);
    expect(result.problems.map((p) => `${p.code} ${p.file}`)).toContainEqual(expect.stringMatching(/^TEMPLATE_RUNTIME .*configmap\.yaml\.ejs$/));
  });
});

describe('restore arguments', () => {
  const cases = [
    ['redis 1.0.0', '../../etc/passwd'],
    ['redis 1.0.0', 'x; rm -rf /data'],
    ['postgresql 1.0.0', '$(id).dump'],
    ['postgresql 1.0.0', '.hidden'],
  ] as const;
  it.each(cases)('%s refuses BACKUP_NAME %j with an error naming the restore template', async (label, name) => {
    const result = await render(renderer, { framework: fw(label), plan: 'restore', args: { BACKUP_NAME: name } });
    expect(result.ok).toBe(false);
    const problem = result.problems.find((p) => p.code === 'TEMPLATE_RUNTIME');
    expect(problem?.file).toMatch(/restore-job\.yaml\.ejs$/);
    expect(problem?.message).toContain('BACKUP_NAME must be a file name');
  });
});

describe('passwords', () => {
  const secretName = (plan: RenderedPlan, sts: string): unknown => at(envOf(find(plan, 'StatefulSet', sts)), [plan.framework.name === 'redis' ? 'REDIS_PASSWORD' : 'POSTGRES_PASSWORD', 'secretKeyRef', 'name']);
  const servers = [['redis 1.0.0', 'demo-primary'], ['redis 1.1.0', 'demo-primary'], ['postgresql 1.0.0', 'demo']] as const;

  it.each(servers)('%s with PASSWORD keeps it (base64) in the Secret <instance>-auth that the server reads', async (label, sts) => {
    const plan = await renderOk(renderer, { framework: fw(label), plan: 'deploy', values: { PASSWORD: 'pässwörd-1' } });
    expect(at(find(plan, 'Secret', 'demo-auth'), ['data', 'password'])).toBe(Buffer.from('pässwörd-1').toString('base64'));
    expect(secretName(plan, sts)).toBe('demo-auth');
    expect(JSON.stringify(plan)).not.toContain('pässwörd-1');
  });

  it.each(servers)('%s without PASSWORD renders no Secret and reads <instance>-auth, or EXISTING_SECRET', async (label, sts) => {
    const plain = await renderOk(renderer, { framework: fw(label), plan: 'deploy' });
    const existing = await renderOk(renderer, { framework: fw(label), plan: 'deploy', values: { EXISTING_SECRET: 'vault-synced' } });
    expect(objectsOf(plain, 'Secret')).toEqual([]);
    expect(secretName(plain, sts)).toBe('demo-auth');
    expect(secretName(existing, sts)).toBe('vault-synced');
  });

  it.each(servers)('%s refuses PASSWORD together with EXISTING_SECRET', async (label) => {
    const result = await render(renderer, { framework: fw(label), plan: 'deploy', values: { PASSWORD: 'x', EXISTING_SECRET: 'y' } });
    expect(result.ok).toBe(false);
    expect(result.problems.map((p) => p.message).join('\n')).toContain('set either PASSWORD or EXISTING_SECRET, not both');
  });
});
