/**
 * `startCluster({ rbac: true, users })` with kubectl as the client: users and tokens in the
 * kubeconfig, RBAC evaluated like the real authorizer, 403s with the real message, `auth can-i`,
 * `auth whoami`, `create token`, and the default policy (discovery for everyone authenticated).
 */
import { request } from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestCluster, kubectlBinaries, startTestCluster } from '../../helpers/cluster.js';

const bins = kubectlBinaries();
let c: TestCluster;

beforeAll(async () => {
  c = await startTestCluster({ rbac: true, users: [{ name: 'alice' }, { name: 'bob', groups: ['devs'] }] });
});
afterAll(async () => {
  await c?.stop();
});

const admin = (args: string[], input?: string) => c.kubectl(args, input !== undefined ? { input } : {});
const as = (user: string, args: string[]) => c.kubectl(['--context', `baton-sim-${user}`, ...args]);

describe.runIf(bins !== undefined)('RBAC with kubectl', () => {
  it('writes one context per user, and each token authenticates as that user', async () => {
    expect(c.users.map((u) => u.context)).toEqual(['baton-sim-alice', 'baton-sim-bob']);
    expect((await as('alice', ['auth', 'whoami'])).stdout).toMatch(/Username\s+alice\nGroups\s+\[system:authenticated\]/);
    expect((await as('bob', ['auth', 'whoami'])).stdout).toMatch(/Groups\s+\[devs system:authenticated\]/);
    expect((await admin(['auth', 'whoami'])).stdout).toMatch(/Username\s+kubernetes-admin\nGroups\s+\[system:masters system:authenticated\]/);
  });

  it('GIVEN no binding THEN a user is refused with the real 403 message, while discovery works', async () => {
    const denied = await as('alice', ['get', 'pods', '-n', 'default']);
    expect(denied.code).toBe(1);
    expect(denied.stderr).toContain('Error from server (Forbidden): pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "default"');
    const nodes = await as('alice', ['get', 'nodes']);
    expect(nodes.stderr).toContain('nodes is forbidden: User "alice" cannot list resource "nodes" in API group "" at the cluster scope');
    expect((await as('alice', ['api-resources', '--api-group=apps'])).stdout).toContain('deployments');
    const canI = await as('alice', ['auth', 'can-i', 'list', 'pods']);
    expect([canI.code, canI.stdout.trim()]).toEqual([1, 'no']);
  });

  it('GIVEN a RoleBinding to view in one namespace THEN the user may read there (not secrets), and nowhere else', async () => {
    await admin(['create', 'namespace', 'team']);
    await admin(['create', 'configmap', 'settings', '-n', 'team', '--from-literal=a=1']);
    expect((await admin(['create', 'rolebinding', 'alice-view', '--clusterrole=view', '--user=alice', '-n', 'team'])).code).toBe(0);
    expect((await as('alice', ['get', 'configmap', 'settings', '-n', 'team', '-o', 'jsonpath={.data.a}'])).stdout).toBe('1');
    expect((await as('alice', ['get', 'secrets', '-n', 'team'])).stderr).toContain('secrets is forbidden: User "alice" cannot list resource "secrets" in API group "" in the namespace "team"');
    expect((await as('alice', ['get', 'configmaps', '-n', 'default'])).stderr).toContain('cannot list resource "configmaps" in API group "" in the namespace "default"');
    const write = await as('alice', ['create', 'configmap', 'mine', '-n', 'team']);
    expect(write.stderr).toContain('configmaps is forbidden: User "alice" cannot create resource "configmaps" in API group "" in the namespace "team"');
    expect((await as('alice', ['auth', 'can-i', 'watch', 'deployments.apps', '-n', 'team'])).stdout.trim()).toBe('yes');
  });

  it('honours resourceNames and subresources, naming the object in the message', async () => {
    await admin(['create', 'configmap', 'other', '-n', 'team']);
    await admin(['create', 'role', 'one-cm', '--verb=get,update', '--resource=configmaps', '--resource-name=settings', '-n', 'team']);
    await admin(['create', 'rolebinding', 'bob-one', '--role=one-cm', '--user=bob', '-n', 'team']);
    expect((await as('bob', ['get', 'configmap', 'settings', '-n', 'team'])).code).toBe(0);
    expect((await as('bob', ['get', 'configmap', 'other', '-n', 'team'])).stderr).toContain('configmaps "other" is forbidden: User "bob" cannot get resource "configmaps" in API group "" in the namespace "team"');
    await admin(['create', 'role', 'pod-reader', '--verb=get', '--resource=pods', '-n', 'team']);
    await admin(['create', 'rolebinding', 'bob-pods', '--role=pod-reader', '--user=bob', '-n', 'team']);
    expect((await as('bob', ['auth', 'can-i', 'get', 'pods', '--subresource=log', '-n', 'team'])).stdout.trim()).toBe('no');
    expect((await as('bob', ['auth', 'can-i', 'get', 'pods', '-n', 'team'])).stdout.trim()).toBe('yes');
  });

  it('binds groups cluster-wide with a ClusterRoleBinding', async () => {
    await admin(['create', 'clusterrolebinding', 'devs-view', '--clusterrole=view', '--group=devs']);
    expect((await as('bob', ['get', 'deployments', '-A'])).code).toBe(0);
    expect((await as('alice', ['get', 'deployments', '-A'])).stderr).toContain('deployments.apps is forbidden: User "alice" cannot list resource "deployments" in API group "apps" at the cluster scope');
  });

  it('issues ServiceAccount tokens that authenticate as the account, bound by ServiceAccount subjects', async () => {
    await admin(['create', 'serviceaccount', 'bot', '-n', 'team']);
    const token = (await admin(['create', 'token', 'bot', '-n', 'team'])).stdout.trim();
    expect(token.split('.')).toHaveLength(3);
    const bot = (args: string[]) => c.kubectl(['--token', token, ...args]);
    expect((await bot(['auth', 'whoami'])).stdout).toMatch(/Username\s+system:serviceaccount:team:bot/);
    expect((await bot(['get', 'pods', '-n', 'team'])).stderr).toContain('User "system:serviceaccount:team:bot" cannot list resource "pods"');
    await admin(['create', 'rolebinding', 'bot-edit', '--clusterrole=edit', '--serviceaccount=team:bot', '-n', 'team']);
    expect((await bot(['create', 'configmap', 'from-bot', '-n', 'team'])).stdout).toBe('configmap/from-bot created\n');
    expect((await admin(['create', 'token', 'ghost', '-n', 'team'])).stderr).toContain('serviceaccounts "ghost" not found');
  });

  it('lists a user\'s rules with auth can-i --list', async () => {
    const out = (await as('alice', ['auth', 'can-i', '--list', '-n', 'team'])).stdout;
    expect(out).toContain('selfsubjectaccessreviews.authorization.k8s.io');
    expect(out).toMatch(/configmaps\s+\[\]\s+\[\]\s+\[get list watch\]/);
  });
});

describe('authentication over HTTPS', () => {
  it('answers 401 without a token (health and version stay public), and 403 with the real message for an unknown path', async () => {
    const get = (path: string, token?: string) => new Promise<{ status: number; body: string }>((resolve, reject) => {
      const r = request(`${c.url}${path}`, { rejectUnauthorized: false, headers: token ? { Authorization: `Bearer ${token}` } : {} }, (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      r.on('error', reject);
      r.end();
    });
    expect((await get('/api/v1/namespaces')).status).toBe(401);
    expect((await get('/version')).status).toBe(200);
    const alice = c.users.find((u) => u.name === 'alice')?.token ?? '';
    expect((await get('/apis', alice)).status).toBe(200);
    const metrics = await get('/metrics', alice);
    expect(metrics.status).toBe(403);
    expect(JSON.parse(metrics.body).message).toBe('forbidden: User "alice" cannot get path "/metrics"');
  });
});
