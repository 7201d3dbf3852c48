/**
 * `dependsOn`: the agent holds a plan of an instance until the instance it depends on has applied its
 * desired state and is healthy (status says what it waits on, once), then runs it; a missing
 * dependency, a cycle and a dependency the tenant may not reach are located refusals in validate and
 * in the engine.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpKubeClient } from '../../src/kube/http-client.js';
import { loadInstanceSource } from '../../src/plans/instance-source.js';
import { MemoryTree, Renderer, RenderProblemsError, validateRepository } from '../../src/render/index.js';
import type { Agent } from '../../src/sync/agent.js';
import { buildPreview } from '../../src/preview/preview.js';
import { formatText } from '../../src/preview/format-text.js';
import { formatMarkdown } from '../../src/preview/format-markdown.js';
import { parseStatus } from '../../src/sync/status-file.js';
import { until } from '../helpers/wait.js';
import { startAgentHarness, type AgentHarness } from '../helpers/agent-harness.js';
import { API, gatedFramework, releaseGate, webFramework, type AgentWorld } from '../sync/fixtures.js';

const inst = (framework: string, dependsOn = ''): string => `${API}\nkind: Instance\nframework: ${framework}\nversion: 1.0.0\n${dependsOn}`;

describe('dependsOn in the agent', () => {
  let h: AgentHarness;
  let world: AgentWorld;
  let client: HttpKubeClient;
  let agent: Agent;

  beforeAll(async () => {
    h = await startAgentHarness({
      files: { ...gatedFramework(), 'instances/shop/db.yaml': inst('gated'), 'instances/shop/app.yaml': inst('web', 'dependsOn:\n  - name: db\n') },
      message: 'db and an app that needs it',
    });
    ({ world, client, agent } = h);
  });
  afterAll(() => h.stop());

  const statusOf = async (name: string): Promise<ReturnType<typeof parseStatus>> => {
    await world.user.pull();
    return parseStatus(world.user.git('show', `HEAD:status/shop/${name}.yaml`), name);
  };

  it('GIVEN app dependsOn db WHEN db is still deploying THEN app waits (status says on what), and runs once db is applied and healthy', async () => {
    const pass = agent.pass();
    // app's turn ends at once: db has no applied state yet. db's plan waits on its gate meanwhile.
    await until(() => agent.instanceStatuses().some((s) => s.instance.name === 'app' && s.waiting !== undefined), 20_000, 'app waiting');
    expect(await client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'shop', name: 'app' })).toBeUndefined();
    await releaseGate(client, 'shop', 'gate-db');
    const first = await pass;
    const appOutcome = first.reports.find((r) => r.instance === 'shop/app')?.outcome;
    expect(appOutcome).toMatchObject({ kind: 'nothing', message: expect.stringMatching(/^waiting for shop\/db: /) as unknown });
    expect(first.reports.find((r) => r.instance === 'shop/db')?.outcome.kind).toBe('complete');
    const waiting = await statusOf('app');
    expect(waiting.waiting?.on).toEqual([{ instance: 'shop/db', reason: expect.any(String) as unknown }]);
    // `baton plan status --git` shows what the plan waits on.
    const run = await h.baton(['plan', 'status', 'shop/app', '--git', world.origin]);
    expect([run.code, run.err]).toEqual([0, '']);
    expect(run.out).toContain("waiting:\n  'on':\n    - instance: shop/db\n      reason: ");

    const second = await agent.pass();
    expect(second.reports.find((r) => r.instance === 'shop/app')?.outcome.kind).toBe('complete');
    expect(await client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'shop', name: 'app' })).toBeDefined();
    const done = await statusOf('app');
    expect(done.state).toBe('COMPLETE');
    expect(done.waiting).toBeUndefined();
    // The wait is in the history once, as its own transition.
    const log = world.user.git('log', '--format=%(trailers:key=Baton-Event,valueonly)%x00', '--', 'status/shop/app.yaml');
    expect(log.split('\0').map((s) => s.trim()).filter((s) => s === 'waiting')).toHaveLength(1);
  });

  it('GIVEN db changes WHEN app changes in the same commit THEN app waits for db to apply the new state first', async () => {
    world.user.write('instances/shop/db.yaml', `${inst('gated')}params: { VALUE: two }\n`);
    world.user.write('instances/shop/app.yaml', `${inst('web', 'dependsOn:\n  - name: db\n')}params: { VALUE: two }\n`);
    world.user.commit('both change');
    await world.user.push();
    const pass = await agent.pass();
    const app = pass.reports.find((r) => r.instance === 'shop/app')?.outcome;
    const db = pass.reports.find((r) => r.instance === 'shop/db')?.outcome;
    expect(db?.kind).toBe('complete');
    // Either app saw db mid-plan (and waits) or after it finished (and ran): never before db applied its state.
    if (app?.kind === 'nothing') {
      expect(app.message).toMatch(/waiting for shop\/db/);
      expect((await agent.pass()).reports.find((r) => r.instance === 'shop/app')?.outcome.kind).toBe('complete');
    } else expect(app?.kind).toBe('complete');
    const cm = await client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'shop', name: 'app' });
    expect((cm?.['data'] as Record<string, string>)['value']).toBe('two');
  });
});

describe('dependsOn problems are located refusals', () => {
  const renderer = new Renderer();
  afterAll(() => renderer.close());
  const base = { ...webFramework() };

  async function engineProblems(tree: MemoryTree, file: string): Promise<string[]> {
    const err: unknown = await loadInstanceSource(tree, file, renderer).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RenderProblemsError);
    return (err as RenderProblemsError).problems.map((p) => `${p.file}:${p.line}: ${p.code}: ${p.message}`);
  }

  it('GIVEN a dependency that does not exist WHEN validated or loaded THEN DEPENDENCY_MISSING at the entry', async () => {
    const tree = new MemoryTree({ ...base, 'instances/shop/app.yaml': inst('web', 'dependsOn:\n  - { name: nope }\n') });
    const report = await validateRepository(tree, renderer);
    expect(report.problems.filter((p) => p.severity === 'error').map((p) => [p.code, p.file, p.line])).toEqual([['DEPENDENCY_MISSING', 'instances/shop/app.yaml', 6]]);
    expect(await engineProblems(tree, 'instances/shop/app.yaml')).toEqual([expect.stringMatching(/^instances\/shop\/app\.yaml:6: DEPENDENCY_MISSING: .*shop\/nope/)]);
  });

  it('GIVEN a cycle through another namespace WHEN validated THEN each instance on it is refused, naming the path', async () => {
    const tree = new MemoryTree({
      ...base,
      'instances/shop/a.yaml': inst('web', 'dependsOn:\n  - { name: b, namespace: other }\n'),
      'instances/other/b.yaml': inst('web', 'dependsOn:\n  - { name: c }\n'),
      'instances/other/c.yaml': inst('web', 'dependsOn:\n  - { name: a, namespace: shop }\n'),
      'instances/shop/d.yaml': inst('web', 'dependsOn:\n  - { name: a }\n'),
    });
    const report = await validateRepository(tree, renderer);
    const errors = report.problems.filter((p) => p.severity === 'error');
    expect(errors.map((p) => [p.code, p.file]).sort()).toEqual([
      ['DEPENDENCY_CYCLE', 'instances/other/b.yaml'], ['DEPENDENCY_CYCLE', 'instances/other/c.yaml'], ['DEPENDENCY_CYCLE', 'instances/shop/a.yaml'],
    ]);
    expect(errors.find((p) => p.file === 'instances/shop/a.yaml')?.message).toContain('shop/a -> other/b -> other/c -> shop/a');
    expect(await engineProblems(tree, 'instances/shop/a.yaml')).toEqual([expect.stringContaining('DEPENDENCY_CYCLE')]);
    // d depends on the cycle without being on it: not refused for it.
    expect(errors.some((p) => p.file === 'instances/shop/d.yaml')).toBe(false);
  });

  it('GIVEN tenants WHEN an instance depends on another tenant in a namespace it may not reach THEN DEPENDENCY_FORBIDDEN', async () => {
    const settings = [
      API, 'kind: Repository', 'tenants:',
      '  - { name: team-a, instances: ["instances/team-a/*.yaml"], namespaces: [team-a] }',
      '  - { name: platform, instances: ["instances/platform/*.yaml"], namespaces: [platform] }',
      '  - { name: team-b, instances: ["instances/team-b/*.yaml"], namespaces: [team-b, platform] }', '',
    ].join('\n');
    const tree = new MemoryTree({
      ...base,
      'baton.yaml': settings,
      'instances/platform/zk.yaml': inst('web'),
      'instances/team-a/app.yaml': inst('web', 'dependsOn:\n  - { name: zk, namespace: platform }\n'),
      'instances/team-b/app.yaml': inst('web', 'dependsOn:\n  - { name: zk, namespace: platform }\n'),
    });
    const report = await validateRepository(tree, renderer);
    const errors = report.problems.filter((p) => p.severity === 'error');
    expect(errors.map((p) => [p.code, p.file, p.line])).toEqual([['DEPENDENCY_FORBIDDEN', 'instances/team-a/app.yaml', 6]]);
    expect(errors[0]?.message).toContain('tenant team-a may not depend on platform/zk');
    // The engine (agent, baton apply) refuses it the same way, located, before anything runs; team-b may.
    expect(await engineProblems(tree, 'instances/team-a/app.yaml')).toEqual([expect.stringContaining('DEPENDENCY_FORBIDDEN')]);
    expect((await loadInstanceSource(tree, 'instances/team-b/app.yaml', renderer)).instance.name).toBe('app');
  });

  it('GIVEN a change adding three dependent instances WHEN previewed THEN the order and what waits on what are shown', async () => {
    const head = new MemoryTree({
      ...base,
      'instances/shop/web.yaml': inst('web', 'dependsOn:\n  - { name: api }\n'),
      'instances/shop/api.yaml': inst('web', 'dependsOn:\n  - { name: db }\n'),
      'instances/shop/db.yaml': inst('web'),
    });
    const report = await buildPreview({ base: new MemoryTree(base), head, baseRef: 'main', headRef: 'change', renderer, now: new Date('2026-01-01T00:00:00Z') });
    expect(report.order).toEqual([
      { instance: 'shop/db', waitsFor: [] },
      { instance: 'shop/api', waitsFor: ['shop/db'] },
      { instance: 'shop/web', waitsFor: ['shop/api'] },
    ]);
    expect(formatText(report)).toContain('  2. shop/api (waits until shop/db applied and healthy)');
    expect(formatMarkdown(report)).toContain('3. `shop/web` waits until `shop/api` is applied and healthy');
  });
});
