/**
 * Pipe tasks end to end against the simulated cluster with its controllers: a Job's termination
 * message (simulated through `sim.baton.dev/termination-message`) becomes the pipe Secret, later steps
 * render with `pipes.<task>.<file>`, the pipe goes with the instance; no output, too much output, a
 * missing file and a template that is not one Job are located failures and nothing after them runs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKubeClient, type HttpKubeClient } from '../../src/kube/http-client.js';
import { loadInstanceSource, reconcileSource } from '../../src/plans/instance-source.js';
import type { ReconcileResult } from '../../src/plans/reconcile.js';
import { MemoryTree, Renderer, validateRepository } from '../../src/render/index.js';
import { startTestCluster, type TestCluster } from '../helpers/cluster.js';

const API = 'apiVersion: baton.dev/v1alpha1';
let cluster: TestCluster;
let client: HttpKubeClient;
const renderer = new Renderer();

beforeAll(async () => {
  cluster = await startTestCluster({ controllers: true, timing: { podStartDelayMs: 10, readyDelayMs: 10 } });
  client = await createKubeClient({ kubeconfigPath: cluster.kubeconfigPath });
});
afterAll(async () => {
  client.close();
  await cluster.stop();
  await renderer.close();
});

function framework(maxBytes = ''): Record<string, string> {
  const dir = 'frameworks/piped/1.0.0';
  return {
    [`${dir}/framework.yaml`]: [
      API, 'kind: Framework', 'name: piped', 'version: 1.0.0',
      'tasks:',
      `  - { name: make-id, kind: Pipe, resources: [id-job.yaml.ejs], pipe: { kind: Secret, files: [id, token]${maxBytes} } }`,
      '  - { name: config, kind: Apply, resources: [config.yaml.ejs] }',
      'plans:',
      '  deploy:',
      '    phases:',
      '      - name: main',
      '        steps:',
      '          - { name: make-id, tasks: [make-id] }',
      '          - { name: config, tasks: [config] }',
      '',
    ].join('\n'),
    [`${dir}/params.yaml`]: '- { name: OUTPUT, type: string, default: "" }\n',
    [`${dir}/templates/id-job.yaml.ejs`]: [
      'apiVersion: batch/v1', 'kind: Job', 'metadata:', '  name: <%= instance.name %>-make-id', 'spec:', '  template:', '    metadata:', '      annotations:',
      '<% if (params.OUTPUT !== "") { %>        sim.baton.dev/termination-message: <%= params.OUTPUT %>', '<% } %>        note: pipe',
      '    spec:', '      restartPolicy: Never', '      containers: [{ name: main, image: "busybox:1.36" }]', '',
    ].join('\n'),
    [`${dir}/templates/config.yaml.ejs`]: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: <%= instance.name %>-config\ndata:\n  id: <%= pipes["make-id"].id %>\n',
  };
}

let seq = 0;
async function deploy(output: string, maxBytes = ''): Promise<{ ns: string; result: ReconcileResult; sensitive: string[] }> {
  const ns = `pipe-${++seq}`;
  const tree = new MemoryTree({ ...framework(maxBytes), [`instances/${ns}/app.yaml`]: `${API}\nkind: Instance\nframework: piped\nversion: 1.0.0\nparams:\n  OUTPUT: ${JSON.stringify(output)}\n` });
  const source = await loadInstanceSource(tree, `instances/${ns}/app.yaml`, renderer, {}, { values: { cluster: client } });
  return { ns, result: await reconcileSource(client, source), sensitive: source.sensitiveValues };
}

function failure(result: ReconcileResult): { code: string; message: string } | undefined {
  return result.kind === 'ran' && result.execution.outcome === 'failed' ? result.execution.error : undefined;
}

describe('Pipe tasks', () => {
  it('GIVEN a Job writing its output WHEN deployed THEN the output becomes the pipe Secret and a later step renders with pipes.<task>.<file>; removal deletes it', async () => {
    const { ns, result } = await deploy('{"id":"cluster-42","token":"t0k3n-very-secret"}');
    expect(result.kind === 'ran' && result.execution.outcome).toBe('complete');
    const pipe = await client.get({ apiVersion: 'v1', kind: 'Secret', namespace: ns, name: 'app-pipe-make-id' });
    const data = pipe?.['data'] as Record<string, string>;
    expect(Buffer.from(data['id'] ?? '', 'base64').toString()).toBe('cluster-42');
    expect(Buffer.from(data['token'] ?? '', 'base64').toString()).toBe('t0k3n-very-secret');
    expect(pipe?.metadata.annotations?.['baton.dev/owner']).toBe(`${ns}/app`);
    const config = await client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'app-config' });
    expect((config?.['data'] as Record<string, string>)['id']).toBe('cluster-42');

    // A later load reads the Secret pipe and masks its values.
    const tree = new MemoryTree({ ...framework(), [`instances/${ns}/app.yaml`]: `${API}\nkind: Instance\nframework: piped\nversion: 1.0.0\n` });
    const again = await loadInstanceSource(tree, `instances/${ns}/app.yaml`, renderer, { removed: true }, { values: { cluster: client } });
    expect(again.sensitiveValues).toContain('t0k3n-very-secret');
    const removed = await reconcileSource(client, again);
    expect(removed.kind).toBe('removed');
    expect(await client.get({ apiVersion: 'v1', kind: 'Secret', namespace: ns, name: 'app-pipe-make-id' })).toBeUndefined();
  });

  it.each([
    ['no output', '', '', 'PIPE_NO_OUTPUT', /produced no output/],
    ['output that is not JSON', 'id=1', '', 'PIPE_OUTPUT_INVALID', /not JSON/],
    ['a declared file missing', '{"id":"x"}', '', 'PIPE_OUTPUT_MISSING', /no text for token/],
    ['more output than maxBytes', `{"id":"${'x'.repeat(100)}","token":"y"}`, ', maxBytes: 64', 'PIPE_OUTPUT_TOO_LARGE', /at most 64 are accepted/],
  ])('GIVEN a Job with %s WHEN deployed THEN the step fails with its PIPE_ code naming the task and Job, and later steps do not run', async (_name, output, maxBytes, code, message) => {
    const { ns, result } = await deploy(output, maxBytes);
    const error = failure(result);
    expect(error?.code).toBe(code);
    expect(error?.message).toMatch(message);
    expect(error?.message).toContain(`Pipe task make-id (Job ${ns}/app-make-id)`);
    expect(await client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'app-config' })).toBeUndefined();
    expect(await client.get({ apiVersion: 'v1', kind: 'Secret', namespace: ns, name: 'app-pipe-make-id' })).toBeUndefined();
  });

  it('GIVEN a Pipe template that renders something other than one Job WHEN validated THEN PIPE_JOB_INVALID names the template', async () => {
    const files = framework();
    files['frameworks/piped/1.0.0/templates/id-job.yaml.ejs'] = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n';
    const report = await validateRepository(new MemoryTree(files), renderer);
    expect(report.problems.filter((p) => p.severity === 'error').map((p) => [p.code, p.file])).toContainEqual(['PIPE_JOB_INVALID', 'frameworks/piped/1.0.0/templates/id-job.yaml.ejs']);
  });

  it('GIVEN no cluster WHEN validated THEN templates render with empty pipe files', async () => {
    const report = await validateRepository(new MemoryTree(framework()), renderer);
    expect(report.problems.filter((p) => p.severity === 'error')).toEqual([]);
  });
});
