/**
 * Issue #11 item 12: the agent reads the repository by the same layout rules as `baton validate`
 * (render/layout.ts): `.yml` instances run, two files for one instance and symbolic links refuse that
 * instance (nothing runs, nothing is deleted), misplaced files are logged located, never silently.
 */
import { symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpKubeClient } from '../../src/kube/http-client.js';
import { DirectoryTree, validateRepository, type Renderer } from '../../src/render/index.js';
import type { Agent } from '../../src/sync/agent.js';
import { parseStatus } from '../../src/sync/status-file.js';
import type { WorkClone } from '../helpers/git-server.js';
import { startAgentHarness, type AgentHarness } from '../helpers/agent-harness.js';
import { instance, outcomeKinds } from './fixtures.js';

describe('the agent and validate read the same instances', () => {
  let h: AgentHarness;
  let client: HttpKubeClient;
  let renderer: Renderer;
  let user: WorkClone;
  let agent: Agent;
  const warnings: string[] = [];

  beforeAll(async () => {
    h = await startAgentHarness({
      files: {
        'instances/shop/alpha.yml': instance({ VALUE: 'yml' }),
        'instances/shop/twin.yaml': instance({ VALUE: 'first' }),
        'shared/linked.yaml': instance({ VALUE: 'linked' }),
        'instances/shop/nested/deep.yaml': instance({ VALUE: 'deep' }),
        'instances/loose.yaml': instance({ VALUE: 'loose' }),
        'instances/shop/.gitkeep': '',
      },
      prepare: (world) => symlinkSync('../../shared/linked.yaml', join(world.user.dir, 'instances/shop/linked.yaml')),
      message: 'instances in every shape',
      agent: { log: (level, message) => { if (level === 'warn') warnings.push(message); } },
    });
    ({ client, renderer, user, agent } = h);
  });
  afterAll(() => h.stop());

  const status = async (name: string): Promise<ReturnType<typeof parseStatus>> => {
    await user.pull();
    return parseStatus(user.git('show', `HEAD:status/shop/${name}.yaml`), name);
  };
  const configMap = async (name: string): Promise<Record<string, string> | undefined> =>
    (await client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'shop', name }))?.data as Record<string, string> | undefined;

  it('GIVEN a .yml instance, a symlinked one and misplaced files WHEN polled THEN the .yml runs, the link is refused, the rest is logged with its file', async () => {
    const pass = await agent.pass();
    expect(outcomeKinds(pass)).toEqual({ 'shop/alpha': 'complete', 'shop/twin': 'complete', 'shop/linked': 'refused' });
    expect((await configMap('alpha'))?.value).toBe('yml');
    expect(await configMap('linked')).toBeUndefined();
    expect((await status('linked')).refusal?.problems?.[0]).toMatch(/^instances\/shop\/linked\.yaml: INSTANCE_SYMLINK: /);
    expect(warnings.some((w) => w.startsWith('instances/shop/nested/: INSTANCE_PATH'))).toBe(true);
    expect(warnings.some((w) => w.startsWith('instances/loose.yaml: INSTANCE_PATH'))).toBe(true);
    expect(warnings.join('\n')).not.toContain('.gitkeep');
  });

  it('GIVEN the same checkout THEN baton validate counts the same instances and reports the same files', async () => {
    const report = await validateRepository(new DirectoryTree(user.dir), renderer);
    expect(report.instances).toBe(3);
    const codes = report.problems.map((p) => `${p.file} ${p.code}`);
    expect(codes).toEqual(expect.arrayContaining(['instances/shop/linked.yaml INSTANCE_SYMLINK', 'instances/shop/nested/ INSTANCE_PATH', 'instances/loose.yaml INSTANCE_PATH']));
  });

  it('GIVEN x.yaml beside x.yml WHEN polled THEN that instance is refused naming both files, and its running objects stay', async () => {
    user.write('instances/shop/twin.yml', instance({ VALUE: 'second' }));
    user.commit('a second file for twin');
    await user.push();
    const pass = await agent.pass();
    expect(outcomeKinds(pass)['shop/twin']).toBe('refused');
    const refusal = (await status('twin')).refusal;
    expect(refusal?.problems?.join('\n')).toContain('instances/shop/twin.yaml and instances/shop/twin.yml both define instance shop/twin');
    expect((await configMap('twin'))?.value).toBe('first');
    const report = await validateRepository(new DirectoryTree(user.dir), renderer);
    expect(report.instances).toBe(3);
    expect(report.problems.filter((p) => p.code === 'INSTANCE_DUPLICATE').map((p) => p.file)).toEqual(['instances/shop/twin.yaml', 'instances/shop/twin.yml']);
  });
});
