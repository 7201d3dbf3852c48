/**
 * Children of Instance tasks in the agent: GIVEN a parent whose deploy creates a child instance, WHEN the
 * agent runs it THEN the child has its own status file (with `parent:`) and history in Git and
 * `baton plan status --git` shows it; later passes leave it alone (no instance file is not a removal);
 * removing the parent removes the child and its status file.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKubeClient, type HttpKubeClient } from '../../src/kube/http-client.js';
import { Renderer } from '../../src/render/index.js';
import type { Agent } from '../../src/sync/agent.js';
import { parseStatus } from '../../src/sync/status-file.js';
import { main } from '../../src/cli/main.js';
import type { CliIO } from '../../src/cli/io.js';
import { API, agentWorld, mirrorOf, testAgent, type AgentWorld } from '../sync/fixtures.js';

const plans = (steps: string[]): string[] => ['plans:', ...['deploy', 'update'].flatMap((p) => [`  ${p}:`, '    phases:', '      - name: main', '        steps:', ...steps.map((s) => `          - ${s}`)])];

const files: Record<string, string> = {
  'frameworks/store/1.0.0/framework.yaml': [API, 'kind: Framework', 'name: store', 'version: 1.0.0', 'tasks:', '  - { name: main, kind: Apply, resources: [cm.yaml.ejs] }', ...plans(['{ name: main, tasks: [main] }']), ''].join('\n'),
  'frameworks/store/1.0.0/params.yaml': '- { name: SIZE, type: integer, minimum: 1 }\n',
  'frameworks/store/1.0.0/templates/cm.yaml.ejs': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: <%= instance.name %>-store\ndata:\n  size: "<%= params.SIZE %>"\n',
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
  let world: AgentWorld;
  let client: HttpKubeClient;
  let renderer: Renderer;
  let agent: Agent;

  beforeAll(async () => {
    world = await agentWorld();
    client = await createKubeClient({ url: world.cluster.url });
    renderer = new Renderer();
    for (const [path, text] of Object.entries(files)) world.user.write(path, text);
    world.user.commit('a shop whose app creates its database as a child instance');
    await world.user.push();
    // As the real agent (team.ts): values and generated Secrets, and children, need the cluster.
    agent = testAgent(mirrorOf(world), client, renderer, { valuesFor: () => ({ cluster: client }) });
    await agent.start();
  });
  afterAll(async () => {
    await agent.stop();
    await renderer.close();
    client.close();
    await world.stop();
  });

  const gitFile = async (path: string): Promise<string | undefined> => {
    await world.user.pull();
    try {
      return world.user.git('show', `HEAD:${path}`);
    } catch {
      return undefined;
    }
  };
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
    const io: CliIO & { out: string; err: string } = { out: '', err: '', isTTY: false, cwd: world.sandbox.dir, exitCode: 0, stdout: (t) => { io.out += t; }, stderr: (t) => { io.err += t; } };
    const code = await main(['node', 'baton', 'plan', 'status', 'shop/shop-db', '--git', world.origin, '-o', 'json'], io);
    expect([code || io.exitCode, io.err]).toEqual([0, '']);
    expect(JSON.parse(io.out)).toMatchObject({ git: { found: true, status: { parent: { instance: 'shop/shop' } } } });
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
