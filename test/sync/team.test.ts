/**
 * The agent for a team, end to end (real git, the simulated API server): SOPS-encrypted values
 * decrypted with the agent's key and never written back, refusals for a file encrypted for another
 * key, a tampered file and a missing valuesFrom Secret (others go on), a created or changed Secret as
 * a change of desired state, tenant rules refusing an instance and a plan, and the outcome listener
 * notifications subscribe to.
 */
import { createServer } from 'node:http';
import { generateIdentity, identityToRecipient } from 'age-encryption';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKubeClient, type HttpKubeClient } from '../../src/kube/http-client.js';
import { AgeKeyring } from '../../src/secrets/index.js';
import type { Agent, InstanceOutcome, PassReport } from '../../src/sync/agent.js';
import { parseStatus } from '../../src/sync/status-file.js';
import type { WorkClone } from '../helpers/git-server.js';
import { sopsEncrypt } from '../secrets/sops-encrypt.js';
import { startAgentHarness, type AgentHarness } from '../helpers/agent-harness.js';
import { API, instance } from './fixtures.js';

const SECRET_VALUE = 'decrypted-value-7f3a';
const FROM_SECRET = 'from-the-secret-91b2';

describe('the agent for a team: encrypted values, valuesFrom, tenants, outcomes', () => {
  let h: AgentHarness;
  let client: HttpKubeClient;
  let user: WorkClone;
  let agent: Agent;
  const outcomes: InstanceOutcome[] = [];

  beforeAll(async () => {
    const identity = await generateIdentity();
    const recipient = await identityToRecipient(identity);
    const stranger = await identityToRecipient(await generateIdentity());
    const encrypted = (to: string): Promise<string> => sopsEncrypt({ apiVersion: 'baton.dev/v1alpha1', kind: 'Instance', framework: 'web', version: '1.0.0', params: { VALUE: SECRET_VALUE, REPLICAS: 2 } }, { recipients: [to], encryptedRegex: '^VALUE$' });
    const files: Record<string, string> = {
      'baton.yaml': [
        API, 'kind: Repository', 'tenants:',
        '  - { name: shop, instances: ["instances/shop/*.yaml"], frameworks: [web], namespaces: [shop], serviceAccount: { namespace: baton-system, name: tenant-shop } }',
        '  - { name: strict, instances: ["instances/strict/*.yaml"], namespaces: [strict], kinds: [Secret] }',
        '',
      ].join('\n'),
      'instances/shop/site.yaml': await encrypted(recipient),
      'instances/shop/plain.yaml': instance({ VALUE: 'plain' }),
      'instances/shop/locked.yaml': await encrypted(stranger),
      'instances/shop/tampered.yaml': (await encrypted(recipient)).replace('REPLICAS: 2', 'REPLICAS: 3'),
      'instances/shop/fromsecret.yaml': `${instance({})}valuesFrom:\n  - { kind: Secret, name: db, key: value, param: VALUE }\n`,
      'instances/strict/web.yaml': instance({}),
      'instances/elsewhere/web.yaml': instance({}),
    };
    const keys = await AgeKeyring.parse(identity, 'test key');
    h = await startAgentHarness({
      files,
      message: 'team repository',
      agent: ({ client: kube }) => ({ valuesFor: () => ({ keys, cluster: kube }), onInstanceOutcome: (o) => outcomes.push(o) }),
    });
    ({ client, user, agent } = h);
  });
  afterAll(() => h.stop());

  const kinds = (r: PassReport): Record<string, string> => Object.fromEntries(r.reports.map((x) => [x.instance, x.outcome.kind]));
  const message = (r: PassReport, id: string): string => {
    const o = r.reports.find((x) => x.instance === id)?.outcome;
    return o && 'message' in o ? o.message : '';
  };
  const value = async (ns: string, name: string): Promise<string | undefined> => ((await client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name }))?.data as Record<string, string> | undefined)?.value;
  const status = async (ns: string, name: string): Promise<ReturnType<typeof parseStatus>> => {
    await user.pull();
    return parseStatus(user.git('show', `HEAD:status/${ns}/${name}.yaml`), name);
  };

  let first: PassReport;

  it('decrypts with its key and deploys; every bad instance is refused with a located reason, the rest go on', async () => {
    first = await agent.pass();
    expect(kinds(first)).toEqual({
      'elsewhere/web': 'refused', 'shop/fromsecret': 'refused', 'shop/locked': 'refused', 'shop/plain': 'complete',
      'shop/site': 'complete', 'shop/tampered': 'refused', 'strict/web': 'refused',
    });
    expect(await value('shop', 'site')).toBe(SECRET_VALUE);
    expect(message(first, 'shop/locked')).toMatch(/^instances\/shop\/locked\.yaml:\d+:\d+: SOPS_NO_KEY: the file is encrypted for age1/);
    expect(message(first, 'shop/tampered')).toContain('SOPS_MAC_MISMATCH');
    expect(message(first, 'shop/fromsecret')).toMatch(/instances\/shop\/fromsecret\.yaml:6:\d+: VALUES_FROM_MISSING: Secret shop\/db does not exist/);
    expect(message(first, 'strict/web')).toContain('TENANT_KIND: tenant strict may not create v1 ConfigMap strict/web');
    expect(message(first, 'elsewhere/web')).toContain('TENANT_NONE');
    expect((await status('shop', 'locked')).refusal?.code).toBe('INVALID_CONTENT');
  });

  it('never writes a decrypted value to Git, and the checkpoint keeps it only as a hash', async () => {
    await user.pull();
    const history = user.git('log', '-p', '--all');
    expect(history).toContain('status/shop/site.yaml');
    expect(history).not.toContain(SECRET_VALUE);
    const checkpoint = await client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'shop', name: 'baton-checkpoint-site' });
    expect(JSON.stringify(checkpoint)).not.toContain(SECRET_VALUE);
    expect(JSON.stringify(checkpoint)).toContain('sha256:');
  });

  it('a Secret created later is a change of desired state: the next poll deploys with its value; a changed Secret runs again', async () => {
    await client.create({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'db', namespace: 'shop' }, data: { value: Buffer.from(FROM_SECRET).toString('base64') } });
    const second = await agent.pass();
    expect(kinds(second)['shop/fromsecret']).toBe('complete');
    expect(await value('shop', 'fromsecret')).toBe(FROM_SECRET);
    await client.patch({ apiVersion: 'v1', kind: 'Secret', namespace: 'shop', name: 'db' }, { data: { value: Buffer.from(`${FROM_SECRET}-2`).toString('base64') } }, 'merge');
    const third = await agent.pass();
    expect(kinds(third)).toEqual(expect.objectContaining({ 'shop/fromsecret': 'complete' }));
    expect(await value('shop', 'fromsecret')).toBe(`${FROM_SECRET}-2`);
    expect(kinds(third)['shop/site']).toBeUndefined();
    await user.pull();
    expect(user.git('log', '-p', '--all')).not.toContain(FROM_SECRET);
  });

  it('tells the outcome listener each instance, its commit and outcome', () => {
    const site = outcomes.find((o) => o.instance.name === 'site');
    expect(site).toMatchObject({ instance: { namespace: 'shop', name: 'site' }, outcome: { kind: 'complete', plan: 'deploy' } });
    expect(site?.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(outcomes.find((o) => o.instance.name === 'locked')?.outcome.kind).toBe('refused');
  });
});

describe('impersonation', () => {
  it('sends Impersonate-User on every request of a tenant client', async () => {
    const seen: (string | undefined)[] = [];
    const discovery: Record<string, unknown> = {
      '/api': { kind: 'APIVersions', versions: ['v1'] },
      '/apis': { kind: 'APIGroupList', groups: [] },
      '/api/v1': { kind: 'APIResourceList', groupVersion: 'v1', resources: [{ name: 'configmaps', namespaced: true, kind: 'ConfigMap', verbs: ['get'] }] },
    };
    const server = createServer((req, res) => {
      seen.push(req.headers['impersonate-user'] as string | undefined);
      const body = discovery[req.url ?? ''];
      if (body) res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      else res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404, message: 'not found' }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    const c = await createKubeClient({ url: `http://127.0.0.1:${port}`, impersonate: 'system:serviceaccount:baton-system:tenant-shop' });
    expect(await c.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'shop', name: 'x' })).toBeUndefined();
    c.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    expect(seen.length).toBeGreaterThan(1);
    expect(new Set(seen)).toEqual(new Set(['system:serviceaccount:baton-system:tenant-shop']));
  });
});
