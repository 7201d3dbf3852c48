/**
 * A child's owner in the agent: GIVEN parent a's child recorded in Git, WHEN parent b (same namespace)
 * renders a child of the same name THEN b's step is refused (CHILD_NAME_TAKEN naming a) and the child's
 * status file and history are written by a's worker only (nothing of b in them); WHEN b is removed THEN
 * the child, its objects and its status file stay.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseStatus } from '../../src/sync/status-file.js';
import { startAgentHarness, type AgentHarness } from '../helpers/agent-harness.js';
import { API } from '../sync/fixtures.js';
import { deployAndUpdatePlans, storeFramework } from './plan-lines.js';

const plans = deployAndUpdatePlans;
const parent = (size: number): string => `${API}\nkind: Instance\nframework: app\nversion: 1.0.0\nparams: { DB_SIZE: ${size} }\n`;

const files: Record<string, string> = {
  ...storeFramework(),
  'frameworks/app/1.0.0/framework.yaml': [
    API, 'kind: Framework', 'name: app', 'version: 1.0.0', 'tasks:',
    '  - { name: db, kind: Instance, framework: store, version: "^1.0.0", resources: [db.yaml.ejs] }',
    ...plans(['{ name: db, tasks: [db] }']), '',
  ].join('\n'),
  'frameworks/app/1.0.0/params.yaml': '- { name: DB_SIZE, type: integer, default: 1 }\n',
  // Every parent names its child `shared-db`: two parents in one namespace render the same child.
  'frameworks/app/1.0.0/templates/db.yaml.ejs': 'apiVersion: baton.dev/v1alpha1\nkind: Instance\nmetadata:\n  name: shared-db\nparams:\n  SIZE: <%= params.DB_SIZE %>\n',
  'instances/shop/a.yaml': parent(2),
};

describe('a child is recorded by its owner only', () => {
  let h: AgentHarness;
  beforeAll(async () => {
    h = await startAgentHarness({ files, message: 'parent a and its database child', agent: ({ client: kube }) => ({ valuesFor: () => ({ cluster: kube }) }) });
  });
  afterAll(() => h.stop());

  const child = async (): Promise<ReturnType<typeof parseStatus> | undefined> => {
    const text = await h.gitFile('status/shop/shared-db.yaml');
    return text === undefined ? undefined : parseStatus(text, 'child');
  };
  const childEvents = (): string[] =>
    h.world.user.git('log', '--reverse', '--format=%(trailers:key=Baton-Event,valueonly)%x00', '--', 'status/shop/shared-db.yaml').split('\0').map((s) => s.trim()).filter((s) => s !== '');
  const size = async (): Promise<unknown> => (await h.client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'shop', name: 'shared-db-store' }))?.['data'];

  it('GIVEN a owns the child WHEN b renders a child of the same name THEN b is refused and the child is recorded by a only; WHEN b is removed THEN the child stays', async () => {
    expect((await h.agent.pass()).reports.find((r) => r.instance === 'shop/a')?.outcome.kind).toBe('complete');
    expect((await child())?.parent).toEqual({ instance: 'shop/a', task: 'db' });
    expect(childEvents()).toEqual(['plan-started', 'phase-complete', 'plan-complete']);

    await h.push({ 'instances/shop/b.yaml': parent(3) }, 'parent b, whose child has the same name');
    const pass = await h.agent.pass();
    const b = pass.reports.find((r) => r.instance === 'shop/b')?.outcome;
    expect(b?.kind).toBe('failed');
    expect(b && 'message' in b ? b.message : '').toContain('belongs to parent shop/a (its Instance task db)');
    // The child's record is a's as before: same parent, same history, same size in the cluster.
    expect((await child())?.parent).toEqual({ instance: 'shop/a', task: 'db' });
    expect(childEvents()).toEqual(['plan-started', 'phase-complete', 'plan-complete']);
    expect(await size()).toEqual({ size: '2' });
    const statusB = await h.statusOf('shop/b');
    expect(statusB?.sync?.status).toBe('Failed');
    expect(JSON.stringify(statusB)).toContain('CHILD_NAME_TAKEN');

    h.world.user.remove('instances/shop/b.yaml');
    h.world.user.commit('no more parent b');
    await h.world.user.push();
    expect((await h.agent.pass()).reports.find((r) => r.instance === 'shop/b')?.outcome.kind).toBe('removed');
    expect((await child())?.parent).toEqual({ instance: 'shop/a', task: 'db' });
    expect(childEvents()).toEqual(['plan-started', 'phase-complete', 'plan-complete']);
    expect(await size()).toEqual({ size: '2' });
    expect((await h.checkpointOf({ namespace: 'shop', name: 'shared-db' }))?.parent).toEqual({ instance: 'shop/a', task: 'db' });
  }, 120_000);
});
