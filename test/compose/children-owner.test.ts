/**
 * A child of an Instance task belongs to the parent that created it until that parent removes it:
 * GIVEN two parents in one namespace rendering a child of the same name, THEN the second (or the loser
 * of a simultaneous create) is refused with CHILD_NAME_TAKEN naming the owner and its task, the owner's
 * child is untouched, and removing the non-owner leaves the child; a child whose checkpoint was written
 * before owners were recorded is adopted by the first parent that runs it. `baton validate` reports two
 * instance files whose parents render the same child.
 */
import { describe, expect, it } from 'vitest';
import { loadInstanceSource, reconcileSource } from '../../src/plans/instance-source.js';
import type { ReconcileResult } from '../../src/plans/reconcile.js';
import type { Checkpoint } from '../../src/plans/checkpoint.js';
import { CHECKPOINT_KEY, checkpointRef } from '../../src/plans/checkpoint-configmap.js';
import { MemoryTree, validateRepository } from '../../src/render/index.js';
import { buildPreview } from '../../src/preview/preview.js';
import { clusterForFile } from '../helpers/engine-harness.js';
import { deployAndUpdatePlans, storeFramework } from './plan-lines.js';

const API = 'apiVersion: baton.dev/v1alpha1';
const file = clusterForFile();
const { renderer } = file;

const frameworks: Record<string, string> = {
  ...storeFramework(),
  'frameworks/app/1.0.0/framework.yaml': [
    API, 'kind: Framework', 'name: app', 'version: 1.0.0', 'tasks:',
    '  - { name: db, kind: Instance, framework: store, version: "^1.0.0", resources: [db.yaml.ejs] }',
    '  - { name: main, kind: Apply, resources: [app.yaml.ejs] }',
    ...deployAndUpdatePlans(['{ name: db, tasks: [db] }', '{ name: main, tasks: [main] }']), '',
  ].join('\n'),
  // The child's name is a parameter: two parents can be told to render the same one.
  'frameworks/app/1.0.0/params.yaml': '- { name: DB_NAME, type: string }\n- { name: DB_SIZE, type: integer, default: 1 }\n',
  'frameworks/app/1.0.0/templates/db.yaml.ejs': 'apiVersion: baton.dev/v1alpha1\nkind: Instance\nmetadata:\n  name: <%= params.DB_NAME %>\nparams:\n  SIZE: <%= params.DB_SIZE %>\n',
  'frameworks/app/1.0.0/templates/app.yaml.ejs': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: <%= instance.name %>\ndata:\n  db: <%= params.DB_NAME %>-store\n',
};

const instanceText = (size: number, db = 'shared-db'): string => `${API}\nkind: Instance\nframework: app\nversion: 1.0.0\nparams: { DB_NAME: ${db}, DB_SIZE: ${size} }\n`;

/** Parents `a` and `b` in `ns`, each rendering the child `shared-db` with its own size. */
const repo = (ns: string, parents: Record<string, number> = { a: 2, b: 3 }): MemoryTree =>
  new MemoryTree({ ...frameworks, ...Object.fromEntries(Object.entries(parents).map(([name, size]) => [`instances/${ns}/${name}.yaml`, instanceText(size)])) });

async function run(tree: MemoryTree, ns: string, parent: string, removed = false): Promise<ReconcileResult> {
  const source = await loadInstanceSource(tree, `instances/${ns}/${parent}.yaml`, renderer, removed ? { removed: true } : {}, { values: { cluster: file.client } });
  return reconcileSource(file.client, source);
}

const failure = (r: ReconcileResult): { code: string; message: string } | undefined =>
  r.kind === 'ran' && r.execution.outcome === 'failed' ? { code: r.execution.error.code, message: r.execution.error.message } : undefined;
const outcome = (r: ReconcileResult): string => (r.kind === 'ran' ? r.execution.outcome : r.kind);
const size = async (ns: string): Promise<string | undefined> =>
  ((await file.client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'shared-db-store' }))?.['data'] as Record<string, string> | undefined)?.['size'];
const childCheckpoint = async (ns: string): Promise<Checkpoint | undefined> => {
  const cm = await file.client.get(checkpointRef({ namespace: ns, name: 'shared-db' }));
  const text = (cm?.['data'] as Record<string, string> | undefined)?.[CHECKPOINT_KEY];
  return text === undefined ? undefined : (JSON.parse(text) as Checkpoint);
};

let seq = 0;
describe('a child belongs to the parent that created it', () => {
  it('GIVEN parent a created the child WHEN parent b renders a child of the same name THEN b is refused with CHILD_NAME_TAKEN naming a and its task, and a is unaffected', async () => {
    const ns = `own-${++seq}`;
    const tree = repo(ns);
    expect(outcome(await run(tree, ns, 'a'))).toBe('complete');
    expect((await childCheckpoint(ns))?.parent).toEqual({ instance: `${ns}/a`, task: 'db' });

    const refused = failure(await run(tree, ns, 'b'));
    expect(refused?.code).toBe('CHILD_NAME_TAKEN');
    expect(refused?.message).toContain(`child instance ${ns}/shared-db (Instance task db, framework store ^1.0.0)`);
    expect(refused?.message).toContain(`belongs to parent ${ns}/a (its Instance task db)`);
    expect(refused?.message).toContain(`instances/${ns}/b.yaml`);
    // Nothing of b reached the child: its size and its history are a's.
    expect(await size(ns)).toBe('2');
    const cp = await childCheckpoint(ns);
    expect([cp?.parent?.instance, cp?.active?.plan, cp?.history.length]).toEqual([`${ns}/a`, 'deploy', 0]);

    // a goes on owning it: its update reaches the child.
    expect(outcome(await run(repo(ns, { a: 4, b: 3 }), ns, 'a'))).toBe('complete');
    expect(await size(ns)).toBe('4');
  });

  it('GIVEN the child owned by a WHEN b (which never got it) is removed THEN the child stays; WHEN a is removed THEN it goes', async () => {
    const ns = `own-${++seq}`;
    const tree = repo(ns);
    expect(outcome(await run(tree, ns, 'a'))).toBe('complete');
    expect(failure(await run(tree, ns, 'b'))?.code).toBe('CHILD_NAME_TAKEN');

    const removedB = await run(tree, ns, 'b', true);
    expect(removedB.kind).toBe('removed');
    expect(removedB.kind === 'removed' && removedB.report.deleted.filter((d) => d.startsWith('Instance'))).toEqual([]);
    expect(removedB.kind === 'removed' && removedB.report.skipped).toEqual([`Instance ${ns}/shared-db`]);
    expect(await size(ns)).toBe('2');
    expect((await childCheckpoint(ns))?.parent?.instance).toBe(`${ns}/a`);
    // b is gone now, a's child is a's as before.
    expect(outcome(await run(repo(ns, { a: 2 }), ns, 'a'))).toBe('nothing');

    const removedA = await run(repo(ns, { a: 2 }), ns, 'a', true);
    expect(removedA.kind === 'removed' && removedA.report.deleted.filter((d) => d.startsWith('Instance'))).toEqual([`Instance ${ns}/shared-db`]);
    expect(await size(ns)).toBeUndefined();
    expect(await childCheckpoint(ns)).toBeUndefined();
  });

  it('GIVEN a child a stopped rendering WHEN b renders one of that name THEN b is refused: a child is not released until its parent is removed', async () => {
    const ns = `own-${++seq}`;
    expect(outcome(await run(repo(ns, { a: 2 }), ns, 'a'))).toBe('complete');
    // a now renders another child name; its first child stays (docs: not removed until the parent is).
    const renamed = new MemoryTree({ ...frameworks, [`instances/${ns}/a.yaml`]: instanceText(2, 'other-db'), [`instances/${ns}/b.yaml`]: instanceText(3) });
    expect(outcome(await run(renamed, ns, 'a'))).toBe('complete');
    expect(failure(await run(renamed, ns, 'b'))?.code).toBe('CHILD_NAME_TAKEN');
    expect(await size(ns)).toBe('2');
  });

  it('GIVEN two parents creating the child at once THEN one owns it and the other is refused, never both running', async () => {
    const ns = `own-${++seq}`;
    const tree = repo(ns);
    const results = await Promise.all([run(tree, ns, 'a'), run(tree, ns, 'b')]);
    const outcomes = results.map(outcome);
    const winner = outcomes.indexOf('complete');
    expect(outcomes.slice().sort()).toEqual(['complete', 'failed']);
    const loser = results[1 - winner];
    expect(loser && failure(loser)?.code).toBe('CHILD_NAME_TAKEN');
    const owner = winner === 0 ? 'a' : 'b';
    const cp = await childCheckpoint(ns);
    expect([cp?.parent?.instance, cp?.history.length, cp?.active?.plan]).toEqual([`${ns}/${owner}`, 0, 'deploy']);
    expect(await size(ns)).toBe(owner === 'a' ? '2' : '3');
  });

  it('GIVEN a child whose checkpoint was written before owners were recorded WHEN a parent runs it THEN that parent adopts it and another parent is refused', async () => {
    const ns = `own-${++seq}`;
    const tree = repo(ns);
    expect(outcome(await run(tree, ns, 'a'))).toBe('complete');
    // As an earlier Baton wrote it: no `parent`.
    const ref = checkpointRef({ namespace: ns, name: 'shared-db' });
    const cm = await file.client.get(ref);
    const { parent: _dropped, ...legacy } = (await childCheckpoint(ns)) ?? ({} as Checkpoint);
    await file.client.update({ ...cm!, data: { [CHECKPOINT_KEY]: JSON.stringify(legacy) } }, { fieldManager: 'baton' });
    expect((await childCheckpoint(ns))?.parent).toBeUndefined();

    // The legacy checkpoint is read as before, and the first parent whose step runs the child adopts it.
    const resized = repo(ns, { a: 4, b: 3 });
    expect(outcome(await run(resized, ns, 'a'))).toBe('complete');
    expect(await size(ns)).toBe('4');
    const cp = await childCheckpoint(ns);
    expect([cp?.parent, cp?.history.map((r) => r.plan), cp?.active?.plan]).toEqual([{ instance: `${ns}/a`, task: 'db' }, ['deploy'], 'update']);
    expect(failure(await run(resized, ns, 'b'))?.code).toBe('CHILD_NAME_TAKEN');
    expect(await size(ns)).toBe('4');
  });

  it('GIVEN two instance files whose parents render the same child WHEN validated or previewed THEN CHILD_NAME_TAKEN at the second, naming the first', async () => {
    const report = await validateRepository(repo('shop'), renderer);
    const taken = report.problems.filter((p) => p.code === 'CHILD_NAME_TAKEN');
    expect(taken.map((p) => p.file)).toEqual(['instances/shop/b.yaml']);
    expect(taken[0]?.message).toContain('child instance shop/shared-db (Instance task db) is also rendered by instance shop/a (instances/shop/a.yaml, Instance task db)');
    // A change adding the second parent is not acceptable in a preview either.
    const preview = await buildPreview({ base: repo('shop', { a: 2 }), head: repo('shop'), baseRef: 'main', headRef: 'change', renderer, now: new Date('2026-01-01T00:00:00Z') });
    expect(preview.problems).toContainEqual(expect.objectContaining({ code: 'CHILD_NAME_TAKEN', file: 'instances/shop/b.yaml', message: expect.stringContaining('instance shop/a') as unknown }));
  });
});
