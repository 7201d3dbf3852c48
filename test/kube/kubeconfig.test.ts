import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import nock from 'nock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeConfigError } from '../../src/kube/errors.js';
import { createKubeClient } from '../../src/kube/http-client.js';
import { JSON_TYPE } from './_fixtures.js';

const KUBECONFIG = `
apiVersion: v1
kind: Config
current-context: dev
clusters:
  - name: dev-cluster
    cluster: { server: "http://127.0.0.1:7001" }
  - name: prod-cluster
    cluster: { server: "http://127.0.0.1:7002" }
users:
  - name: dev-user
    user: { token: dev-token }
  - name: prod-user
    user: { username: admin, password: s3cret }
contexts:
  - name: dev
    context: { cluster: dev-cluster, user: dev-user, namespace: team-a }
  - name: prod
    context: { cluster: prod-cluster, user: prod-user }
`;

const EXTRA = `
apiVersion: v1
kind: Config
clusters:
  - name: extra-cluster
    cluster: { server: "http://127.0.0.1:7003" }
users:
  - name: extra-user
    user: { token: extra-token }
contexts:
  - name: extra
    context: { cluster: extra-cluster, user: extra-user }
`;

const CORE = { resources: [{ name: 'configmaps', kind: 'ConfigMap', namespaced: true }] };

describe('kubeconfig loading', () => {
  let dir: string;
  let main: string;
  let extra: string;
  beforeAll(() => {
    nock.disableNetConnect();
    dir = mkdtempSync(join(tmpdir(), 'baton-kubeconfig-'));
    main = join(dir, 'config');
    extra = join(dir, 'extra');
    writeFileSync(main, KUBECONFIG);
    writeFileSync(extra, EXTRA);
  });
  afterAll(() => {
    nock.cleanAll();
    nock.enableNetConnect();
    rmSync(dir, { recursive: true, force: true });
  });

  it('GIVEN the current context WHEN a client is made THEN it uses its server, bearer token and namespace', async () => {
    const scope = nock('http://127.0.0.1:7001', { reqheaders: { authorization: 'Bearer dev-token' } })
      .get('/api/v1').reply(200, CORE, JSON_TYPE)
      .get('/api/v1/namespaces/team-a/configmaps/c').reply(200, { metadata: { name: 'c' } }, JSON_TYPE);
    const kube = await createKubeClient({ kubeconfigPath: main });
    expect(kube.defaultNamespace).toBe('team-a');
    expect((await kube.get({ apiVersion: 'v1', kind: 'ConfigMap', name: 'c' }))?.metadata.name).toBe('c');
    scope.done();
    kube.close();
  });

  it('GIVEN a kubeconfig with fixed credentials WHEN an agent\'s client is made THEN client-node never loads into the process (its generated API holds about 70 MiB of RSS): a child process resolves it', async () => {
    // A process whose module loader refuses client-node: only the resolver's own child may load it.
    const refuse = `export async function resolve(s, c, next) { if (s.startsWith('@kubernetes/client-node')) throw new Error('client-node loaded in this process'); return next(s, c); }`;
    const hook = `data:text/javascript,import { register } from 'node:module'; register(${JSON.stringify(`data:text/javascript,${refuse}`)});`;
    const client = join(import.meta.dirname, '..', '..', 'src', 'kube', 'http-client.ts');
    const script = `const { createKubeClient } = await import(${JSON.stringify(client)}); const k = await createKubeClient({ kubeconfigPath: process.argv[1], apart: true }); process.stdout.write(k.defaultNamespace); k.close();`;
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--import', hook, '--input-type=module', '-e', script, main], { cwd: join(import.meta.dirname, '..', '..') });
    expect(stdout).toBe('team-a');
  });

  it('GIVEN the in-cluster service account token file WHEN an agent\'s client is made THEN the token is read from the file by the agent (no client-node in the process)', async () => {
    const token = join(dir, 'token');
    writeFileSync(token, 'file-token\n');
    const file = join(dir, 'token-config');
    writeFileSync(file, `
apiVersion: v1
kind: Config
current-context: in
clusters: [{ name: c, cluster: { server: "http://127.0.0.1:7005" } }]
users: [{ name: u, user: { auth-provider: { name: tokenFile, config: { tokenFile: ${JSON.stringify(token)} } } } }]
contexts: [{ name: in, context: { cluster: c, user: u, namespace: ops } }]
`);
    const scope = nock('http://127.0.0.1:7005', { reqheaders: { authorization: 'Bearer file-token' } }).get('/api/v1').reply(200, CORE, JSON_TYPE);
    const kube = await createKubeClient({ kubeconfigPath: file, apart: true });
    expect(kube.defaultNamespace).toBe('ops');
    await kube.resourceFor('v1', 'ConfigMap');
    scope.done();
    kube.close();
  });

  it('GIVEN a named context with basic auth WHEN a client is made THEN it talks to that cluster with the basic credentials', async () => {
    const basic = `Basic ${Buffer.from('admin:s3cret').toString('base64')}`;
    const scope = nock('http://127.0.0.1:7002', { reqheaders: { authorization: basic } }).get('/api/v1').reply(200, CORE, JSON_TYPE);
    const kube = await createKubeClient({ kubeconfigPath: main, context: 'prod' });
    expect(kube.defaultNamespace).toBe('default');
    await kube.resourceFor('v1', 'ConfigMap');
    scope.done();
    kube.close();
  });

  it('GIVEN an unknown context WHEN a client is made THEN a KubeConfigError lists the known contexts', async () => {
    const err: unknown = await createKubeClient({ kubeconfigPath: main, context: 'staging' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KubeConfigError);
    expect((err as Error).message).toBe(`${main}: no context "staging" (contexts: dev, prod)`);
  });

  it('GIVEN a missing file WHEN a client is made THEN a KubeConfigError names the file', async () => {
    const err: unknown = await createKubeClient({ kubeconfigPath: join(dir, 'nope') }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KubeConfigError);
    expect((err as Error).message).toContain(`cannot load kubeconfig ${join(dir, 'nope')}`);
  });

  it('GIVEN KUBECONFIG with two paths WHEN a client is made for a context of the second file THEN the files are merged', async () => {
    const saved = process.env.KUBECONFIG;
    process.env.KUBECONFIG = `${main}:${extra}`;
    try {
      const scope = nock('http://127.0.0.1:7003', { reqheaders: { authorization: 'Bearer extra-token' } }).get('/api/v1').reply(200, CORE, JSON_TYPE);
      const kube = await createKubeClient({ context: 'extra' });
      await kube.resourceFor('v1', 'ConfigMap');
      scope.done();
      kube.close();
    } finally {
      if (saved === undefined) delete process.env.KUBECONFIG;
      else process.env.KUBECONFIG = saved;
    }
  });

  it('GIVEN an exec credential plugin WHEN requests are made THEN its token is sent', async () => {
    const credential = JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status: { token: 'exec-token' } });
    const file = join(dir, 'exec');
    writeFileSync(file, `
apiVersion: v1
kind: Config
current-context: exec
clusters: [{ name: c, cluster: { server: "http://127.0.0.1:7004" } }]
users: [{ name: u, user: { exec: { apiVersion: client.authentication.k8s.io/v1, command: /bin/sh, args: ["-c", ${JSON.stringify(`echo '${credential}'`)}], interactiveMode: Never } } }]
contexts: [{ name: exec, context: { cluster: c, user: u } }]
`);
    const scope = nock('http://127.0.0.1:7004', { reqheaders: { authorization: 'Bearer exec-token' } })
      .get('/api/v1').reply(200, CORE, JSON_TYPE)
      .get('/api/v1/namespaces/default/configmaps/c').reply(200, { metadata: { name: 'c' } }, JSON_TYPE);
    const kube = await createKubeClient({ kubeconfigPath: file });
    await kube.get({ apiVersion: 'v1', kind: 'ConfigMap', name: 'c' });
    scope.done();
    kube.close();
  });

  it('GIVEN client options with a bad URL WHEN a client is made THEN a KubeConfigError says what was expected', async () => {
    await expect(createKubeClient({ url: 'ftp://x' })).rejects.toThrow('client options: server "ftp://x" must use http or https');
  });
});
