/**
 * Children of Instance tasks in the agent: GIVEN a parent whose deploy creates a child instance, WHEN the
 * agent runs it THEN the child has its own status file (with `parent:`) and history in Git and
 * `baton plan status --git` shows it; later passes leave it alone (no instance file is not a removal);
 * removing the parent removes the child and its status file.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpKubeClient } from '../../src/kube/http-client.js';
import type { Agent } from '../../src/sync/agent.js';
import { parseStatus } from '../../src/sync/status-file.js';
import { startAgentHarness, type AgentHarness } from '../helpers/agent-harness.js';
import { API, type AgentWorld } from '../sync/fixtures.js';
import { deployAndUpdatePlans, storeFramework } from './plan-lines.js';

const plans = deployAndUpdatePlans;

const files: Record<string, string> = {
  ...storeFramework(),
  'frameworks/app/1.0.0/framework.yaml': [
    API, 'kind: Framework', 'name: app', 'version: 1.0.0', 'tasks:',
    '  - { name: db, kind: Instance, framework: store, version: "^1.0.0", resources: [db.yaml.ejs] }',
    '  - { name: main, kind: Apply, resources: [app.yaml.ejs] }',
    ...plans(['{ name: db, tasks: [db] }', '{ name: main, tasks: [main] }']), '',
  ].join('\n'),
  'frameworks/app/1.0.0/params.yaml': '- { name: DB_SIZE, type: integer, default: 1 }\n',
  'frameworks/app/1.0.0/templates/db.yaml.ejs': 'apiVersion: baton.dev/v1alpha1\nkind: Instance\nmetadata:\n  name: <%= instance.name %>-db\nparams:\n  SIZE: <%= params.DB_SIZE %>\n',
  'frameworks/app/1.0.0/templates/app.yaml.ejs': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: <%= instance.name %>\ndata:\n  db: <%= instance.name %>-db-store\n',
  'instances/shop/shop.yaml': `${API}\nkind: Instance\nframework: app\nversion: 1.0.0\nparams: { DB_SIZE: 2 }\n`,
};

describe('child instances in the agent', () => {
  let h: AgentHarness;
  let world: AgentWorld;
  let client: HttpKubeClient;
  let agent: Agent;

  beforeAll(async () => {
    h = await startAgentHarness({
      files,
      message: 'a shop whose app creates its database as a child instance',
      // As the real agent (team.ts): values and generated Secrets, and children, need the cluster.
      agent: ({ client: kube }) => ({ valuesFor: () => ({ cluster: kube }) }),
    });
    ({ world, client, agent } = h);
  });
  afterAll(() => h.stop());

  const gitFile = (path: string): Promise<string | undefined> => h.gitFile(path);
  const events = (path: string): string[] =>
    world.user.git('log', '--reverse', '--format=%(trailers:key=Baton-Event,valueonly)%x00', '--', path).split('\0').map((s) => s.trim()).filter((s) => s !== '');

  it('GIVEN the parent deployed by the agent THEN the child has its own status file naming its parent, and its plan transitions in the history', async () => {
    const pass = await agent.pass();
    expect(pass.reports.find((r) => r.instance === 'shop/shop')?.outcome.kind).toBe('complete');
    const text = await gitFile('status/shop/shop-db.yaml');
    expect(text).toBeDefined();
    const child = parseStatus(text ?? '', 'status/shop/shop-db.yaml');
    expect(child).toMatchObject({ state: 'COMPLETE', parent: { instance: 'shop/shop', task: 'db' }, framework: { name: 'store', version: '1.0.0' } });
    expect(child.plans?.['deploy']).toMatchObject({ state: { status: 'COMPLETE' } });
    expect(events('status/shop/shop-db.yaml')).toEqual(['plan-started', 'phase-complete', 'plan-complete']);
    // The parent's own history names the child in its step.
    expect(JSON.stringify(parseStatus((await gitFile('status/shop/shop.yaml')) ?? '', 'shop'))).toContain('child shop/shop-db (store): deploy COMPLETE, healthy');
  });

  it('GIVEN the child status WHEN read with baton plan status --git THEN it is shown like any instance', async () => {
    const run = await h.baton(['plan', 'status', 'shop/shop-db', '--git', world.origin, '-o', 'json']);
    expect([run.code, run.err]).toEqual([0, '']);
    expect(JSON.parse(run.out)).toMatchObject({ git: { found: true, status: { parent: { instance: 'shop/shop' } } } });
  });

  it('GIVEN a later pass with nothing changed THEN the child (which has no instance file) is not removed', async () => {
    await agent.pass();
    expect(await gitFile('status/shop/shop-db.yaml')).toBeDefined();
    expect(await client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'shop', name: 'shop-db-store' })).toBeDefined();
    expect(events('status/shop/shop-db.yaml')).toEqual(['plan-started', 'phase-complete', 'plan-complete']);
  });

  it('GIVEN a changed child value WHEN the parent updates THEN the child records its update', async () => {
    world.user.write('instances/shop/shop.yaml', `${API}\nkind: Instance\nframework: app\nversion: 1.0.0\nparams: { DB_SIZE: 5 }\n`);
    world.user.commit('a bigger database');
    await world.user.push();
    await agent.pass();
    const child = parseStatus((await gitFile('status/shop/shop-db.yaml')) ?? '', 'child');
    expect(child.plans?.['update']).toMatchObject({ state: { status: 'COMPLETE' } });
    expect(events('status/shop/shop-db.yaml')).toEqual(['plan-started', 'phase-complete', 'plan-complete', 'plan-started', 'phase-complete', 'plan-complete']);
  });

  it('GIVEN the parent removed THEN the child is removed after it, and its status file with it', async () => {
    world.user.remove('instances/shop/shop.yaml');
    world.user.commit('no more shop');
    await world.user.push();
    const pass = await agent.pass();
    expect(pass.reports.find((r) => r.instance === 'shop/shop')?.outcome.kind).toBe('removed');
    expect(await gitFile('status/shop/shop-db.yaml')).toBeUndefined();
    expect(events('status/shop/shop-db.yaml').at(-1)).toBe('removed');
    expect(await client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'shop', name: 'shop-db-store' })).toBeUndefined();
  });
});
