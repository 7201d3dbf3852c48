/**
 * Reliability: secret-leak probes (issue #11 items 9-10). A sensitive value with double and single
 * quotes, a backslash, non-ASCII letters and HTML characters reaches every output Baton has: the API
 * rejects it in a label (its error quotes the value, escaped), it is a Secret's data (base64) and a
 * ConfigMap key. Each output is searched for every encoding of the value (render/mask.ts encodedForms,
 * at least 4 characters) and for fragments of it; a try (one output) is clean when none appears.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import type { CliIO } from '../../src/cli/io.js';
import { createKubeClient, type HttpKubeClient } from '../../src/kube/http-client.js';
import { KubeEventRecorder } from '../../src/plans/kube-events.js';
import { encodedForms, Renderer } from '../../src/render/index.js';
import type { Agent } from '../../src/sync/agent.js';
import type { WorkClone } from '../helpers/git-server.js';
import { agentWorld, instance, mirrorOf, testAgent, webFramework, type AgentWorld } from '../sync/fixtures.js';
import { FigureCounter } from './local-figures.js';

const SECRET = 'Pa"ss\\wörd✓\'<&>-9z';
const FORMS = encodedForms(SECRET).filter((f) => f.length >= 4);
const FRAGMENTS = ['Pa"ss', 'ss\\w', 'wörd', 'w\\u00f6rd', 'w\\\\u00f6rd'];

/** The encodings of the secret found in `text` (none when clean). */
function found(text: string): string[] {
  return [...FORMS, ...FRAGMENTS].filter((f) => text.includes(f));
}

function leakyFramework(): Record<string, string> {
  const dir = 'frameworks/web/1.2.0';
  const base = webFramework('1.2.0');
  return {
    ...base,
    [`${dir}/templates/main.yaml.ejs`]: [
      'apiVersion: v1', 'kind: ConfigMap', 'metadata:', '  name: <%= instance.name %>', '  labels:', '    pw: <%= params.PASSWORD %>',
      'data:', '  <%= params.PASSWORD %>: key-of-a-secret', '  value: <%= params.VALUE %>',
      '---', 'apiVersion: v1', 'kind: Secret', 'metadata:', '  name: <%= instance.name + "-secret" %>', 'data:', '  password: <%= b64enc(params.PASSWORD) %>', '',
    ].join('\n'),
  };
}

describe('a sensitive value with quotes, a backslash and unicode reaches no output in any encoding', () => {
  let world: AgentWorld;
  let client: HttpKubeClient;
  let renderer: Renderer;
  let user: WorkClone;
  let agent: Agent;
  let base: string;
  const logs: string[] = [];
  const counter = new FigureCounter('secret-leaks');

  beforeAll(async () => {
    world = await agentWorld();
    user = world.user;
    client = await createKubeClient({ url: world.cluster.url });
    renderer = new Renderer();
    user.write('instances/shop/site.yaml', instance({ VALUE: 'plain' }));
    base = user.commit('a plain instance');
    for (const [path, text] of Object.entries(leakyFramework())) user.write(path, text);
    user.write('instances/shop/leaky.yaml', instance({ PASSWORD: SECRET }, '1.2.0'));
    user.commit('an instance whose secret the API rejects');
    await user.push();
    const events = new KubeEventRecorder(client);
    agent = testAgent(mirrorOf(world), client, renderer, { kubeEvents: events, log: (level, message, fields) => logs.push(`${level} ${message} ${JSON.stringify(fields ?? {})}`) });
    await agent.start();
    const pass = await agent.pass();
    expect(pass.reports.find((r) => r.instance === 'shop/leaky')?.outcome.kind).toBe('failed');
    await events.flush();
    await user.pull();
  }, 120_000);
  afterAll(async () => {
    await agent.stop();
    await renderer.close();
    client.close();
    await world.stop();
    counter.print();
  });

  async function cli(...args: string[]): Promise<string> {
    const io: CliIO & { out: string; err: string } = { out: '', err: '', isTTY: false, cwd: user.dir, exitCode: 0, stdout: (t) => void (io.out += t), stderr: (t) => void (io.err += t) };
    await main(['node', 'baton', ...args], io);
    return `${io.out}\n${io.err}`;
  }

  const outputs: [string, () => Promise<string>][] = [
    ['the status file', async () => user.git('show', 'HEAD:status/shop/leaky.yaml')],
    ['commit subjects and trailers', async () => user.git('log', '--format=%B')],
    ['the checkpoint ConfigMap', async () => JSON.stringify(await client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'shop', name: 'baton-checkpoint-leaky' }))],
    ['Kubernetes Events', async () => JSON.stringify([...(await client.list('v1', 'Event', 'shop')).items, ...(await client.list('v1', 'Event', 'default')).items])],
    ['agent logs', async () => logs.join('\n')],
    ['baton history', async () => (await cli('history', 'shop/leaky', '--git', user.dir)) + (await cli('history', '--git', user.dir, '-o', 'json'))],
    ['baton plan status (Git)', async () => cli('plan', 'status', 'shop/leaky', '--git', user.dir, '-o', 'json')],
    ['baton plan status (cluster)', async () => cli('plan', 'status', 'shop/leaky', '--kubeconfig', world.cluster.kubeconfigPath, '-o', 'json')],
    ['baton render -o yaml', async () => cli('render', 'instances/shop/leaky.yaml')],
    ['baton render -o json', async () => cli('render', 'instances/shop/leaky.yaml', '-o', 'json')],
    ['baton preview (markdown)', async () => cli('preview', '--base', base, '--head', 'HEAD', '--git', user.dir)],
    ['baton preview (json)', async () => cli('preview', '--base', base, '--head', 'HEAD', '--git', user.dir, '-o', 'json')],
    ['baton validate', async () => cli('validate', user.dir)],
  ];

  it.each(outputs)('%s', async (_name, read) => {
    await counter.run(async () => {
      const text = await read();
      expect(text.length).toBeGreaterThan(0);
      if (process.env.BATON_PROBE_DEBUG) process.stdout.write(`PROBE ${_name}: ${text.length} chars, masked ${text.split('***').length - 1}x\n`);
      expect(found(text)).toEqual([]);
    });
  });

  it('the API error did quote the value (the probe reached the outputs)', () => {
    expect(logs.join('\n')).toContain('***');
  });
});
