/**
 * Instance tasks against the simulated cluster: a parent's step creates and updates a child instance of
 * another framework (parameters from the parent's values), waits for its plan and health, and on the
 * parent's removal removes the child after the parent's own objects; unknown frameworks and versions,
 * child parameters the child's framework refuses and framework cycles are located errors, and nothing
 * of a refused child is created.
 */
import { describe, expect, it } from 'vitest';
import { loadInstanceSource, reconcileSource } from '../../src/plans/instance-source.js';
import type { ReconcileResult } from '../../src/plans/reconcile.js';
import type { EngineEvent, EventListener } from '../../src/plans/events.js';
import type { Checkpoint } from '../../src/plans/checkpoint.js';
import { MemoryTree, validateRepository } from '../../src/render/index.js';
import { bestVersion } from '../../src/compose/children/range.js';
import { buildPreview } from '../../src/preview/preview.js';
import { formatText } from '../../src/preview/format-text.js';
import { formatMarkdown } from '../../src/preview/format-markdown.js';
import { clusterForFile } from '../helpers/engine-harness.js';
import { deployAndUpdatePlans } from './plan-lines.js';

const API = 'apiVersion: baton.dev/v1alpha1';
/** One cluster, client and renderer for the file's tests (each test works in its own namespace). */
const file = clusterForFile();
const { renderer } = file;

const plans = deployAndUpdatePlans;

function store(version: string, extra: string[] = []): Record<string, string> {
  const dir = `frameworks/store/${version}`;
  return {
    [`${dir}/framework.yaml`]: [API, 'kind: Framework', 'name: store', `version: ${version}`, 'tasks:', '  - { name: main, kind: Apply, resources: [cm.yaml.ejs] }', ...extra, ...plans(['{ name: main, tasks: [main] }']), ''].join('\n'),
    [`${dir}/params.yaml`]: '- { name: SIZE, type: integer, minimum: 1 }\n',
    [`${dir}/templates/cm.yaml.ejs`]: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: <%= instance.name %>-store\ndata:\n  size: "<%= params.SIZE %>"\n  version: <%= framework.version %>\n',
  };
}

function app(range = '^1.0.0'): Record<string, string> {
  const dir = 'frameworks/app/1.0.0';
  return {
    [`${dir}/framework.yaml`]: [
      API, 'kind: Framework', 'name: app', 'version: 1.0.0', 'tasks:',
      `  - { name: db, kind: Instance, framework: store, version: "${range}", resources: [db.yaml.ejs] }`,
      '  - { name: main, kind: Apply, resources: [app.yaml.ejs] }',
      ...plans(['{ name: db, tasks: [db] }', '{ name: main, tasks: [main] }']), '',
    ].join('\n'),
    [`${dir}/params.yaml`]: '- { name: DB_SIZE, type: integer, default: 1 }\n- { name: WITH_DB, type: boolean, default: true }\n',
    [`${dir}/templates/db.yaml.ejs`]: '<% if (params.WITH_DB) { -%>\napiVersion: baton.dev/v1alpha1\nkind: Instance\nmetadata:\n  name: <%= instance.name %>-db\nparams:\n  SIZE: <%= params.DB_SIZE %>\n<% } -%>\n',
    [`${dir}/templates/app.yaml.ejs`]: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: <%= instance.name %>\ndata:\n  db: <%= instance.name %>-db-store\n',
  };
}

const repo = (ns: string, size: unknown, range?: string, withDb = true): MemoryTree =>
  new MemoryTree({ ...store('1.0.0'), ...store('1.2.0'), ...store('2.0.0'), ...app(range), [`instances/${ns}/shop.yaml`]: `${API}\nkind: Instance\nframework: app\nversion: 1.0.0\nparams: { DB_SIZE: ${JSON.stringify(size)}, WITH_DB: ${withDb} }\n` });

async function run(tree: MemoryTree, ns: string, removed = false, onEvent?: EventListener): Promise<ReconcileResult> {
  const source = await loadInstanceSource(tree, `instances/${ns}/shop.yaml`, renderer, removed ? { removed: true } : {}, { values: { cluster: file.client } });
  return reconcileSource(file.client, source, onEvent);
}

const cm = async (ns: string, name: string): Promise<Record<string, string> | undefined> => (await file.client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name }))?.['data'] as Record<string, string> | undefined;

const stepMessage = (cp: Checkpoint): string | undefined => {
  const step = cp.active?.phases[0]?.steps.find((st) => st.name === 'db');
  return step && 'message' in step.state ? step.state.message : undefined;
};

let seq = 0;
describe('Instance tasks', () => {
  it('GIVEN a parent with an Instance task WHEN deployed, updated and removed THEN the child follows: created with the highest version in range, updated, removed after the parent', async () => {
    const ns = `child-${++seq}`;
    const first = await run(repo(ns, 2), ns);
    expect(first.kind === 'ran' && first.execution.outcome).toBe('complete');
    expect(await cm(ns, 'shop-db-store')).toEqual({ size: '2', version: '1.2.0' });
    expect(await cm(ns, 'shop')).toBeDefined();
    // The step's record names the child and its result: status, plan status and history show it.
    const step = first.kind === 'ran' ? first.execution.run.phases[0]?.steps.find((s) => s.name === 'db') : undefined;
    expect(step?.state).toMatchObject({ status: 'COMPLETE', message: expect.stringContaining(`child ${ns}/shop-db (store): deploy COMPLETE, healthy`) as unknown });
    expect(await file.client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'baton-checkpoint-shop-db' })).toBeDefined();

    const update = await run(repo(ns, 5), ns);
    expect(update.kind === 'ran' && update.execution.outcome).toBe('complete');
    expect((await cm(ns, 'shop-db-store'))?.['size']).toBe('5');

    const removed = await run(repo(ns, 5), ns, true);
    expect(removed.kind).toBe('removed');
    if (removed.kind === 'removed') {
      const order = removed.report.deleted;
      expect(order.indexOf(`Instance ${ns}/shop-db`)).toBeGreaterThan(order.findIndex((d) => d.includes(`${ns}/shop`) && d.startsWith('ConfigMap')));
    }
    expect(await cm(ns, 'shop-db-store')).toBeUndefined();
    expect(await cm(ns, 'shop')).toBeUndefined();
    expect(await file.client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'baton-checkpoint-shop-db' })).toBeUndefined();
  });

  it('GIVEN a parent step running its child WHEN it runs THEN the step says it waits on the child and what the child does, in its checkpoint and as step-waiting events', async () => {
    const ns = `child-${++seq}`;
    const events: EngineEvent[] = [];
    const result = await run(repo(ns, 2), ns, false, (e) => events.push(e));
    expect(result.kind === 'ran' && result.execution.outcome).toBe('complete');
    const waits = events.flatMap((e) => (e.type === 'step-waiting' && e.instance.name === 'shop' ? [`${e.step} ${e.object}: ${e.message}`] : []));
    const about = `db Instance ${ns}/shop-db: child instance (framework store 1.2.0; baton plan status ${ns}/shop-db)`;
    expect(waits).toEqual([
      `${about}: checking whether a plan must run`,
      `${about}: its deploy plan started`,
      `${about}: its deploy plan: step main/main`,
      `${about}: checking its health`,
    ]);
    // The parent's checkpoint said so while the child ran (a checkpoint event per progress report).
    const messages = events.flatMap((e) => (e.type === 'checkpoint' && e.instance.name === 'shop' ? [stepMessage(e.checkpoint)] : []));
    expect(messages).toContain(`waiting on Instance ${ns}/shop-db: child instance (framework store 1.2.0; baton plan status ${ns}/shop-db): its deploy plan: step main/main`);
  });

  it('GIVEN child parameters the child framework refuses WHEN deployed THEN the parent fails with CHILD_INVALID naming the child and the problem, and no child is created', async () => {
    const ns = `child-${++seq}`;
    const result = await run(repo(ns, 0), ns);
    const error = result.kind === 'ran' && result.execution.outcome === 'failed' ? result.execution.error : undefined;
    expect(error?.code).toBe('CHILD_INVALID');
    expect(error?.message).toContain(`child instance ${ns}/shop-db (Instance task db, framework store ^1.0.0)`);
    expect(error?.message).toContain('PARAM_MINIMUM');
    expect(await file.client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'baton-checkpoint-shop-db' })).toBeUndefined();
    expect(await cm(ns, 'shop')).toBeUndefined();
  });

  it('GIVEN a version range nothing satisfies WHEN validated or deployed THEN CHILD_FRAMEWORK_UNKNOWN at the task', async () => {
    const ns = `child-${++seq}`;
    const tree = repo(ns, 1, '^3.0.0');
    const report = await validateRepository(tree, renderer);
    const errors = report.problems.filter((p) => p.severity === 'error');
    expect(errors.map((p) => [p.code, p.file, p.line])).toContainEqual(['CHILD_FRAMEWORK_UNKNOWN', 'frameworks/app/1.0.0/framework.yaml', 6]);
    expect(errors[0]?.message).toContain('has no version in ^3.0.0 (available: 1.0.0, 1.2.0, 2.0.0)');
    const result = await run(tree, ns);
    expect(result.kind === 'ran' && result.execution.outcome === 'failed' ? result.execution.error.code : undefined).toBe('CHILD_FRAMEWORK_UNKNOWN');
    expect(await file.client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'baton-checkpoint-shop-db' })).toBeUndefined();
  });

  it('GIVEN a child framework that does not exist WHEN validated or deployed THEN CHILD_FRAMEWORK_UNKNOWN names it, the parent step fails and no child is created', async () => {
    const ns = `child-${++seq}`;
    const files = { ...store('1.0.0'), ...app(), [`instances/${ns}/shop.yaml`]: `${API}\nkind: Instance\nframework: app\nversion: 1.0.0\n` };
    const key = 'frameworks/app/1.0.0/framework.yaml';
    files[key] = files[key]!.replace('framework: store,', 'framework: nosuch,');
    const tree = new MemoryTree(files);
    const report = await validateRepository(tree, renderer);
    const error = report.problems.find((p) => p.code === 'CHILD_FRAMEWORK_UNKNOWN');
    expect([error?.file, error?.message]).toEqual([key, 'Instance task db: framework "nosuch" does not exist under frameworks/']);
    const result = await run(tree, ns);
    const failed = result.kind === 'ran' && result.execution.outcome === 'failed' ? result.execution.error : undefined;
    expect(failed?.code).toBe('CHILD_FRAMEWORK_UNKNOWN');
    expect(failed?.message).toContain(`child instance ${ns}/shop-db (Instance task db, framework nosuch ^1.0.0)`);
    expect(await file.client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'baton-checkpoint-shop-db' })).toBeUndefined();
    expect(await cm(ns, 'shop')).toBeUndefined();
  });

  it('GIVEN an Instance template that renders nothing WHEN deployed and removed THEN no child is created and the parent completes', async () => {
    const ns = `child-${++seq}`;
    const result = await run(repo(ns, 2, undefined, false), ns);
    expect(result.kind === 'ran' && result.execution.outcome).toBe('complete');
    const step = result.kind === 'ran' ? result.execution.run.phases[0]?.steps.find((s) => s.name === 'db') : undefined;
    expect(step?.state.status).toBe('COMPLETE');
    expect(await file.client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'baton-checkpoint-shop-db' })).toBeUndefined();
    expect(await cm(ns, 'shop')).toBeDefined();
    const removed = await run(repo(ns, 2, undefined, false), ns, true);
    expect(removed.kind === 'removed' && removed.report.deleted.filter((d) => d.startsWith('Instance'))).toEqual([]);
  });

  it('GIVEN an instance loaded without a cluster WHEN its Instance step runs THEN it fails with CHILD_NO_CLUSTER instead of completing without the child', async () => {
    const ns = `child-${++seq}`;
    const source = await loadInstanceSource(repo(ns, 2), `instances/${ns}/shop.yaml`, renderer);
    const result = await reconcileSource(file.client, source);
    expect(result.kind === 'ran' && result.execution.outcome === 'failed' ? result.execution.error.code : undefined).toBe('CHILD_NO_CLUSTER');
    expect(await cm(ns, 'shop')).toBeUndefined();
  });

  it('GIVEN a change adding a parent WHEN previewed THEN the step lists the child instance it creates (text, Markdown, JSON)', async () => {
    const head = repo('shop', 2);
    const base = new MemoryTree({ ...store('1.0.0'), ...app() });
    const report = await buildPreview({ base, head, baseRef: 'main', headRef: 'change', renderer, now: new Date('2026-01-01T00:00:00Z') });
    const inst = report.instances.find((i) => i.instance.name === 'shop');
    const step = inst?.outcome === 'run' ? inst.steps.find((s) => s.step === 'db') : undefined;
    expect(step?.children).toEqual([{ instance: 'shop/shop-db', task: 'db', framework: 'store', version: '^1.0.0' }]);
    expect(formatText(report)).toContain('    child instance shop/shop-db (Instance task db: framework store ^1.0.0), created or updated by its own plans');
    expect(formatMarkdown(report)).toContain('child instance `shop/shop-db`');
  });

  it('GIVEN frameworks that install each other WHEN validated THEN CHILD_CYCLE names the path', async () => {
    const files = { ...store('1.0.0', ['  - { name: back, kind: Instance, framework: app, version: "1.0.0", resources: [cm.yaml.ejs] }']), ...app('1.0.0') };
    const report = await validateRepository(new MemoryTree(files), renderer);
    const cycle = report.problems.filter((p) => p.code === 'CHILD_CYCLE');
    expect(cycle.map((p) => p.file).sort()).toEqual(['frameworks/app/1.0.0/framework.yaml', 'frameworks/store/1.0.0/framework.yaml']);
    expect(cycle.find((p) => p.file.startsWith('frameworks/app'))?.message).toContain('app -> store -> app');
  });

  it('resolves version ranges to the highest matching version', () => {
    const versions = ['1.0.0', '1.2.0', '1.2.5', '2.0.0', '2.1.0-rc.1', '0.3.1', '0.4.0'];
    expect(bestVersion(versions, '^1.0.0')).toBe('1.2.5');
    expect(bestVersion(versions, '~1.2.0')).toBe('1.2.5');
    expect(bestVersion(versions, '>=1.0.0 <2.0.0')).toBe('1.2.5');
    expect(bestVersion(versions, '^0.3.0')).toBe('0.3.1');
    expect(bestVersion(versions, '*')).toBe('2.0.0');
    expect(bestVersion(versions, '2.1.0-rc.1')).toBe('2.1.0-rc.1');
    expect(bestVersion(versions, '^3.0.0')).toBeUndefined();
    expect(bestVersion(versions, 'latest')).toBeUndefined();
  });
});
