/**
 * Issue #11 item 11: an object belongs to exactly one instance. Two instances of one namespace render
 * the same ConfigMap: validate and the engine refuse the second (naming the owner), the first keeps its
 * object, removing the second deletes nothing of the first, and removing the first deletes its object
 * but never the namespace the second still lives in.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKubeClient, type HttpKubeClient } from '../../src/kube/http-client.js';
import { loadInstanceSource, reconcileSource } from '../../src/plans/instance-source.js';
import type { ReconcileResult } from '../../src/plans/reconcile.js';
import { MemoryTree, Renderer, validateRepository } from '../../src/render/index.js';
import { startTestCluster, type TestCluster } from '../helpers/cluster.js';

const API = 'apiVersion: baton.dev/v1alpha1';
const framework = (name: string): Record<string, string> => ({
  [`frameworks/${name}/1.0.0/framework.yaml`]: [API, 'kind: Framework', `name: ${name}`, 'version: 1.0.0', 'namespaceManifest: ns.yaml.ejs', 'tasks:', '  - { name: main, kind: Apply, resources: [shared.yaml.ejs, own.yaml.ejs] }', 'plans:', '  deploy:', '    phases:', '      - name: main', '        steps:', '          - { name: main, tasks: [main] }', ''].join('\n'),
  [`frameworks/${name}/1.0.0/templates/ns.yaml.ejs`]: 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: <%= instance.namespace %>\n',
  [`frameworks/${name}/1.0.0/templates/shared.yaml.ejs`]: `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: shared-settings\ndata:\n  writer: ${name}\n`,
  [`frameworks/${name}/1.0.0/templates/own.yaml.ejs`]: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: <%= instance.name + "-own" %>\ndata:\n  k: v\n',
});
const inst = (fw: string): string => `${API}\nkind: Instance\nframework: ${fw}\nversion: 1.0.0\n`;

describe('one owner per object', () => {
  let cluster: TestCluster;
  let client: HttpKubeClient;
  const renderer = new Renderer();
  const tree = new MemoryTree({ ...framework('alpha'), ...framework('beta'), 'instances/team/first.yaml': inst('alpha'), 'instances/team/second.yaml': inst('beta') });

  beforeAll(async () => {
    cluster = await startTestCluster();
    client = await createKubeClient({ url: cluster.url });
  });
  afterAll(async () => {
    client.close();
    await renderer.close();
    await cluster.stop();
  });

  const run = async (file: string, removed = false): Promise<ReconcileResult> => reconcileSource(client, await loadInstanceSource(tree, file, renderer, removed ? { removed: true } : {}));
  const cm = async (name: string): Promise<Record<string, string> | undefined> => (await client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'team', name }))?.data as Record<string, string> | undefined;

  it('GIVEN two instances rendering the same object THEN validate refuses the second, located, naming the first', async () => {
    const report = await validateRepository(tree, renderer);
    const conflicts = report.problems.filter((p) => p.code === 'OBJECT_OWNER_CONFLICT');
    expect(conflicts).toHaveLength(1);
    expect(conflicts[0]).toMatchObject({ file: 'instances/team/second.yaml', severity: 'error' });
    expect(conflicts[0]!.message).toContain('ConfigMap team/shared-settings');
    expect(conflicts[0]!.message).toContain('instance team/first (instances/team/first.yaml');
  });

  it('GIVEN the first deployed WHEN the second applies the same object THEN its step fails naming the owner, and the object is untouched', async () => {
    const first = await run('instances/team/first.yaml');
    expect(first.kind === 'ran' && first.execution.outcome).toBe('complete');
    const second = await run('instances/team/second.yaml');
    expect(second.kind === 'ran' && second.execution.outcome).toBe('failed');
    const error = second.kind === 'ran' && second.execution.outcome === 'failed' ? second.execution.error : undefined;
    expect(error).toMatchObject({ code: 'OBJECT_OWNED_BY_OTHER_INSTANCE' });
    expect(error?.message).toContain('ConfigMap team/shared-settings belongs to instance team/first');
    expect(await cm('shared-settings')).toEqual({ writer: 'alpha' });
    // Nothing of the refused step was applied.
    expect(await cm('second-own')).toBeUndefined();
  });

  it('GIVEN the second removed THEN the first\'s object stays', async () => {
    const removed = await run('instances/team/second.yaml', true);
    expect(removed.kind).toBe('removed');
    expect(await cm('shared-settings')).toEqual({ writer: 'alpha' });
    expect(await cm('first-own')).toEqual({ k: 'v' });
  });

  it('GIVEN a third instance in the namespace WHEN the first is removed THEN its objects go but the shared namespace stays', async () => {
    tree.set('instances/team/third.yaml', inst('beta').replace('beta', 'alpha')).set('frameworks/alpha/1.0.0/templates/shared.yaml.ejs', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: <%= instance.name + "-shared" %>\ndata:\n  writer: alpha\n');
    const third = await run('instances/team/third.yaml');
    expect(third.kind === 'ran' && third.execution.outcome).toBe('complete');
    tree.set('frameworks/alpha/1.0.0/templates/shared.yaml.ejs', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: shared-settings\ndata:\n  writer: alpha\n');
    const removed = await run('instances/team/first.yaml', true);
    expect(removed.kind === 'removed' && removed.report.skipped).toEqual(['Namespace team']);
    expect(await cm('shared-settings')).toBeUndefined();
    expect(await client.get({ apiVersion: 'v1', kind: 'Namespace', name: 'team' })).toBeDefined();
    expect(await cm('third-own')).toEqual({ k: 'v' });
  });
});
