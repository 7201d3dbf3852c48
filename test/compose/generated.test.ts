/**
 * Generated values end to end against the simulated cluster over HTTP: generated once into the
 * instance's Secret, stable across updates and upgrades, masked and hashed (never in the checkpoint
 * or events in the clear), rotated only by a run's `rotate-generated` argument (once per request),
 * removed with the instance; bad declarations and rotations are located problems.
 */
import { describe, expect, it } from 'vitest';
import { generateValue, generatedSecretRef, readGenerated } from '../../src/compose/index.js';
import { loadInstanceSource, reconcileSource } from '../../src/plans/instance-source.js';
import type { EngineEvent } from '../../src/plans/events.js';
import { MemoryTree, RenderProblemsError, validateRepository } from '../../src/render/index.js';
import { clusterForFile } from '../helpers/engine-harness.js';

const API = 'apiVersion: baton.dev/v1alpha1';
/** One cluster, client and renderer for the file's tests (each test works in its own namespace). */
const file = clusterForFile();
const { renderer } = file;

const PARAMS_1 = [
  '- { name: REPLICAS, type: integer, default: 1 }',
  '- name: PASSWORD',
  '  generate: { kind: password, length: 32 }',
].join('\n');
const PARAMS_2 = `${PARAMS_1}\n- name: TOKEN\n  generate: { kind: token, length: 16, alphabet: "ab" }\n- name: ID\n  generate: { kind: uuid }\n`;

function framework(version: string, params: string): Record<string, string> {
  const dir = `frameworks/db/${version}`;
  return {
    [`${dir}/framework.yaml`]: [
      API, 'kind: Framework', 'name: db', `version: ${version}`,
      'tasks:', '  - { name: main, kind: Apply, resources: [secret.yaml.ejs] }',
      'plans:',
      ...['deploy', 'update', 'upgrade', 'rotate'].flatMap((p) => [`  ${p}:`, '    phases:', '      - name: main', '        steps:', '          - { name: main, tasks: [main] }']),
      '',
    ].join('\n'),
    [`${dir}/params.yaml`]: params,
    [`${dir}/templates/secret.yaml.ejs`]: [
      'apiVersion: v1', 'kind: Secret', 'metadata:', '  name: <%= instance.name %>-creds', 'stringData:',
      '  password: <%= params.PASSWORD %>', '  replicas: "<%= params.REPLICAS %>"',
      ...(params.includes('TOKEN') ? ['  token: <%= params.TOKEN %>', '  id: <%= params.ID %>'] : []), '',
    ].join('\n'),
  };
}

function repo(namespace: string, version: string, instanceParams: string): MemoryTree {
  return new MemoryTree({
    ...framework('1.0.0', PARAMS_1),
    ...framework('2.0.0', PARAMS_2),
    [`instances/${namespace}/db.yaml`]: `${API}\nkind: Instance\nframework: db\nversion: ${version}\nparams: { ${instanceParams} }\n`,
  });
}

let seq = 0;
async function step(namespace: string, tree: MemoryTree, extras: Parameters<typeof loadInstanceSource>[3] = {}): Promise<{ events: EngineEvent[]; sensitive: string[] }> {
  const source = await loadInstanceSource(tree, `instances/${namespace}/db.yaml`, renderer, extras, { values: { cluster: file.client } });
  const events: EngineEvent[] = [];
  const result = await reconcileSource(file.client, source, (e) => events.push(e));
  if (result.kind === 'ran') expect(result.execution.outcome).toBe('complete');
  return { events, sensitive: source.sensitiveValues };
}

async function rendered(namespace: string): Promise<Record<string, string>> {
  const s = await file.client.get({ apiVersion: 'v1', kind: 'Secret', namespace, name: 'db-creds' });
  const data = (s?.['data'] ?? {}) as Record<string, string>;
  return Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()]));
}

describe('generated values', () => {
  it('GIVEN a generated password WHEN deployed, updated and upgraded THEN it is generated once, kept in the instance Secret, stable, and never stored in the clear', async () => {
    const ns = `gen-${++seq}`;
    const first = await step(ns, repo(ns, '1.0.0', 'REPLICAS: 1'));
    const stored = await readGenerated(file.client, { namespace: ns, name: 'db' });
    const password = stored.values.get('PASSWORD') ?? '';
    expect(password).toMatch(/^[A-Za-z0-9]{32}$/);
    expect((await rendered(ns))['password']).toBe(password);
    expect(first.sensitive).toContain(password);
    // The Secret is marked as the instance's.
    expect(stored.object?.metadata.annotations?.['baton.dev/owner']).toBe(`${ns}/db`);

    await step(ns, repo(ns, '1.0.0', 'REPLICAS: 3'));
    expect(await rendered(ns)).toMatchObject({ password, replicas: '3' });

    const upgrade = await step(ns, repo(ns, '2.0.0', 'REPLICAS: 3'));
    const after = await readGenerated(file.client, { namespace: ns, name: 'db' });
    expect(after.values.get('PASSWORD')).toBe(password);
    expect(after.values.get('TOKEN')).toMatch(/^[ab]{16}$/);
    expect(after.values.get('ID')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(await rendered(ns)).toMatchObject({ password, token: after.values.get('TOKEN'), id: after.values.get('ID') });

    // Neither the checkpoint nor any engine event holds a generated value, plain or base64.
    const checkpoint = JSON.stringify(await file.client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'baton-checkpoint-db' }));
    const shown = JSON.stringify([first.events, upgrade.events]);
    for (const v of after.values.values()) {
      for (const text of [checkpoint, shown]) {
        expect(text).not.toContain(v);
        expect(text).not.toContain(Buffer.from(v).toString('base64'));
      }
    }
  });

  it('GIVEN a request with rotate-generated WHEN it runs THEN only the named value changes, once per request id', async () => {
    const ns = `gen-${++seq}`;
    const tree = repo(ns, '2.0.0', 'REPLICAS: 1');
    await step(ns, tree);
    const before = await readGenerated(file.client, { namespace: ns, name: 'db' });
    const request = { request: { id: 'r-1', plan: 'rotate', args: { 'rotate-generated': 'PASSWORD' }, explicit: true } };
    await step(ns, tree, request);
    const after = await readGenerated(file.client, { namespace: ns, name: 'db' });
    expect(after.values.get('PASSWORD')).not.toBe(before.values.get('PASSWORD'));
    expect(after.values.get('TOKEN')).toBe(before.values.get('TOKEN'));
    expect((await rendered(ns))['password']).toBe(after.values.get('PASSWORD'));
    // The same request loaded again (a resumed run, another poll) does not rotate a second time.
    await loadInstanceSource(tree, `instances/${ns}/db.yaml`, renderer, request, { values: { cluster: file.client } });
    expect((await readGenerated(file.client, { namespace: ns, name: 'db' })).values.get('PASSWORD')).toBe(after.values.get('PASSWORD'));
    // `*` rotates all of them.
    await step(ns, tree, { request: { id: 'r-2', plan: 'rotate', args: { 'rotate-generated': '*' }, explicit: true } });
    const all = await readGenerated(file.client, { namespace: ns, name: 'db' });
    expect(all.values.get('TOKEN')).not.toBe(before.values.get('TOKEN'));
    expect(all.values.get('ID')).not.toBe(before.values.get('ID'));
  });

  it('GIVEN a rotation naming a parameter that is not generated WHEN loaded THEN it is refused with a located problem and nothing changes', async () => {
    const ns = `gen-${++seq}`;
    const tree = repo(ns, '1.0.0', 'REPLICAS: 1');
    await step(ns, tree);
    const before = await readGenerated(file.client, { namespace: ns, name: 'db' });
    const err: unknown = await loadInstanceSource(tree, `instances/${ns}/db.yaml`, renderer, { request: { id: 'r', plan: 'rotate', args: { 'rotate-generated': 'REPLICAS' } } }, { values: { cluster: file.client } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RenderProblemsError);
    expect((err as RenderProblemsError).problems[0]).toMatchObject({ code: 'GENERATED_ROTATE_UNKNOWN', file: `instances/${ns}/db.yaml`, message: expect.stringContaining('REPLICAS') as unknown });
    expect((await readGenerated(file.client, { namespace: ns, name: 'db' })).values).toEqual(before.values);
  });

  it('GIVEN a value the instance sets itself WHEN deployed THEN it wins and nothing is generated for it', async () => {
    const ns = `gen-${++seq}`;
    await step(ns, repo(ns, '1.0.0', 'PASSWORD: chosen-by-hand'));
    expect((await rendered(ns))['password']).toBe('chosen-by-hand');
    expect((await readGenerated(file.client, { namespace: ns, name: 'db' })).object).toBeUndefined();
  });

  it('GIVEN an instance with generated values WHEN removed THEN its Secret goes too, after its objects', async () => {
    const ns = `gen-${++seq}`;
    const tree = repo(ns, '1.0.0', 'REPLICAS: 1');
    await step(ns, tree);
    const source = await loadInstanceSource(tree, `instances/${ns}/db.yaml`, renderer, { removed: true }, { values: { cluster: file.client } });
    const result = await reconcileSource(file.client, source);
    expect(result.kind).toBe('removed');
    if (result.kind === 'removed') expect(result.report.deleted.at(-1)).toContain('baton-generated-db');
    expect(await file.client.get(generatedSecretRef({ namespace: ns, name: 'db' }))).toBeUndefined();
  });

  it('GIVEN no cluster WHEN validated THEN plans render with placeholders; without a cluster the engine refuses', async () => {
    const tree = repo('offline', '2.0.0', 'REPLICAS: 1');
    const report = await validateRepository(tree, renderer);
    expect(report.problems.filter((p) => p.severity === 'error')).toEqual([]);
    const err: unknown = await loadInstanceSource(tree, 'instances/offline/db.yaml', renderer).catch((e: unknown) => e);
    expect((err as RenderProblemsError).problems[0]?.code).toBe('GENERATED_NO_CLUSTER');
  });

  it('GIVEN a generated parameter with a pattern WHEN its framework is validated THEN the placeholder of its shape is used, not a sample that breaks the pattern', async () => {
    const params = "- name: PASSWORD\n  generate: { kind: token, length: 22, alphabet: 'AB-_' }\n  pattern: '^[AB_-]{22}$'\n- { name: REPLICAS, type: integer, default: 1 }\n";
    const report = await validateRepository(new MemoryTree({ ...framework('1.0.0', params) }), renderer);
    expect(report.problems.filter((p) => p.severity === 'error')).toEqual([]);
  });

  it('GIVEN bad generator declarations WHEN validated THEN each is a located error in params.yaml', async () => {
    const bad = '- name: PASSWORD\n  type: integer\n  generate: { kind: token }\n- name: REPLICAS\n  default: x\n  generate: { kind: uuid }\n';
    const report = await validateRepository(new MemoryTree({ ...framework('1.0.0', bad) }), renderer);
    const errors = report.problems.filter((p) => p.severity === 'error').map((p) => [p.code, p.file, p.line]);
    expect(errors).toEqual(expect.arrayContaining([
      ['PARAM_GENERATE_INVALID', 'frameworks/db/1.0.0/params.yaml', 3],
      ['PARAM_GENERATE_INVALID', 'frameworks/db/1.0.0/params.yaml', 5],
    ]));
    const schema = await validateRepository(new MemoryTree({ ...framework('1.0.0', '- name: PASSWORD\n  generate: { kind: password, length: 0 }\n- { name: REPLICAS, default: 1 }\n') }), renderer);
    expect(schema.problems.filter((p) => p.severity === 'error').map((p) => [p.code, p.line])).toEqual([['SCHEMA_VALUE', 2]]);
  });

  it('generates from the whole alphabet, uniformly enough, and bytes in the asked encoding', () => {
    const seen = new Set(generateValue({ kind: 'password', length: 2000, alphabet: 'xyz' }));
    expect(seen).toEqual(new Set(['x', 'y', 'z']));
    expect(Buffer.from(generateValue({ kind: 'bytes', length: 48 }), 'base64')).toHaveLength(48);
    expect(generateValue({ kind: 'bytes', length: 8, encoding: 'hex' })).toMatch(/^[0-9a-f]{16}$/);
  });
});
