import nock from 'nock';
import { afterEach, beforeAll, afterAll, describe, expect, it } from 'vitest';
import type { HttpKubeClient } from '../../src/kube/http-client.js';
import { connectionFromUrl } from '../../src/kube/connection.js';
import { KubeApiError } from '../../src/kube/errors.js';
import { DEFAULT_TRANSPORT, NOT_FOUND, Transport } from '../../src/kube/transport.js';
import { JSON_TYPE, SERVER, client, mockDiscovery, notFound } from './_fixtures.js';

const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'conf', namespace: 'app' }, data: { a: '1' } };
const deploy = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'app' }, spec: { replicas: 2, extra: { kept: true } } };

describe('HttpKubeClient verbs against a mocked API server', () => {
  let kube: HttpKubeClient;
  beforeAll(() => nock.disableNetConnect());
  afterAll(() => nock.enableNetConnect());
  afterEach(() => {
    kube.close();
    nock.cleanAll();
  });

  async function setup(): Promise<void> {
    mockDiscovery();
    kube = await client();
  }

  it('GIVEN an existing object WHEN get THEN it returns the object with unknown fields intact and sends the bearer token', async () => {
    await setup();
    nock(SERVER, { reqheaders: { authorization: 'Bearer secret-token' } })
      .get('/apis/apps/v1/namespaces/app/deployments/web')
      .reply(200, deploy, JSON_TYPE);
    expect(await kube.get({ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'app' })).toEqual(deploy);
  });

  it('GIVEN a missing object WHEN get THEN it returns undefined', async () => {
    await setup();
    nock(SERVER).get('/api/v1/namespaces/app/configmaps/gone').reply(404, notFound('configmaps "gone" not found'), JSON_TYPE);
    expect(await kube.get({ apiVersion: 'v1', kind: 'ConfigMap', name: 'gone', namespace: 'app' })).toBeUndefined();
  });

  it('GIVEN a 404 WHEN the request says notFoundOk THEN the transport resolves NOT_FOUND without an error; otherwise it throws the API error', async () => {
    // Issue 20: the engine's expected 404s (ownership checks, first checkpoint reads) built a KubeApiError with a stack each.
    await setup();
    nock(SERVER).get('/api/v1/namespaces/app/configmaps/gone').times(2).reply(404, notFound('configmaps "gone" not found'), JSON_TYPE);
    const transport = new Transport(connectionFromUrl({ url: SERVER }), { ...DEFAULT_TRANSPORT, readRetries: 0 });
    try {
      expect(await transport.json({ method: 'GET', path: '/api/v1/namespaces/app/configmaps/gone', idempotent: true, notFoundOk: true })).toBe(NOT_FOUND);
      const err: unknown = await transport.json({ method: 'GET', path: '/api/v1/namespaces/app/configmaps/gone', idempotent: true }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(KubeApiError);
      expect((err as KubeApiError).status).toBe(404);
    } finally {
      transport.close();
    }
  });

  it('GIVEN a namespaced ref without a namespace WHEN get THEN the default namespace is used', async () => {
    await setup();
    nock(SERVER).get('/api/v1/namespaces/default/configmaps/conf').reply(200, { ...cm, metadata: { name: 'conf', namespace: 'default' } }, JSON_TYPE);
    expect((await kube.get({ apiVersion: 'v1', kind: 'ConfigMap', name: 'conf' }))?.metadata.namespace).toBe('default');
  });

  it('GIVEN a cluster-scoped kind WHEN get with a namespace THEN the namespace is left out of the path', async () => {
    await setup();
    nock(SERVER).get('/api/v1/namespaces/app').reply(200, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'app' } }, JSON_TYPE);
    expect((await kube.get({ apiVersion: 'v1', kind: 'Namespace', name: 'app', namespace: 'ignored' }))?.metadata.name).toBe('app');
  });

  it('GIVEN a list whose items lack apiVersion and kind WHEN list THEN they are filled in and selectors are sent', async () => {
    await setup();
    nock(SERVER)
      .get('/api/v1/namespaces/app/configmaps')
      .query({ labelSelector: 'app=x', limit: '10' })
      .reply(200, { kind: 'ConfigMapList', metadata: { resourceVersion: '42', continue: 'tok' }, items: [{ metadata: { name: 'a' } }] }, JSON_TYPE);
    const result = await kube.list('v1', 'ConfigMap', 'app', { labelSelector: 'app=x', limit: 10 });
    expect(result).toEqual({ items: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } }], resourceVersion: '42', continue: 'tok' });
  });

  it('GIVEN two pages WHEN list with allPages THEN it follows the continue token and returns every item', async () => {
    await setup();
    nock(SERVER)
      .get('/api/v1/configmaps').query({ limit: '1' })
      .reply(200, { metadata: { resourceVersion: '5', continue: 'p2' }, items: [{ metadata: { name: 'a' } }] }, JSON_TYPE)
      .get('/api/v1/configmaps').query({ limit: '1', continue: 'p2' })
      .reply(200, { metadata: { resourceVersion: '5' }, items: [{ metadata: { name: 'b' } }] }, JSON_TYPE);
    const result = await kube.list('v1', 'ConfigMap', undefined, { limit: 1, allPages: true });
    expect(result.items.map((i) => i.metadata.name)).toEqual(['a', 'b']);
    expect(result.continue).toBeUndefined();
  });

  it('GIVEN an object WHEN create THEN it POSTs the JSON body to the collection with the field manager', async () => {
    await setup();
    nock(SERVER)
      .post('/api/v1/namespaces/app/configmaps', cm)
      .query({ fieldManager: 'baton' })
      .reply(201, { ...cm, metadata: { ...cm.metadata, uid: 'u1' } }, JSON_TYPE);
    expect((await kube.create(cm, { fieldManager: 'baton' })).metadata.uid).toBe('u1');
  });

  it.each([
    ['update', '/apis/apps/v1/namespaces/app/deployments/web'],
    ['updateStatus', '/apis/apps/v1/namespaces/app/deployments/web/status'],
  ] as const)('WHEN %s THEN it PUTs the object to %s', async (verb, path) => {
    await setup();
    nock(SERVER).put(path, deploy).reply(200, deploy, JSON_TYPE);
    expect(await kube[verb](deploy)).toEqual(deploy);
  });

  it.each([
    ['merge', 'application/merge-patch+json'],
    ['json', 'application/json-patch+json'],
    ['strategic', 'application/strategic-merge-patch+json'],
  ] as const)('WHEN patch of type %s THEN the content type is %s', async (type, contentType) => {
    await setup();
    nock(SERVER, { reqheaders: { 'content-type': contentType } })
      .patch('/apis/apps/v1/namespaces/app/deployments/web', { spec: { replicas: 3 } })
      .reply(200, deploy, JSON_TYPE);
    await expect(kube.patch({ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'app' }, { spec: { replicas: 3 } }, type)).resolves.toEqual(deploy);
  });

  it('WHEN patch of the scale subresource THEN it targets /scale and returns a Scale', async () => {
    await setup();
    nock(SERVER)
      .patch('/apis/apps/v1/namespaces/app/deployments/web/scale')
      .reply(200, { spec: { replicas: 5 }, metadata: { name: 'web' } }, JSON_TYPE);
    const scale = await kube.patch({ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'app' }, { spec: { replicas: 5 } }, 'merge', { subresource: 'scale' });
    expect(scale.kind).toBe('Scale');
  });

  it('WHEN apply THEN it PATCHes apply-patch+yaml with fieldManager, force and dryRun, without managedFields', async () => {
    await setup();
    const withManaged = { ...deploy, metadata: { ...deploy.metadata, managedFields: [{ manager: 'x' }] } };
    nock(SERVER, { reqheaders: { 'content-type': 'application/apply-patch+yaml' } })
      .patch('/apis/apps/v1/namespaces/app/deployments/web', deploy)
      .query({ fieldManager: 'baton', force: 'true', dryRun: 'All' })
      .reply(200, deploy, JSON_TYPE);
    expect(await kube.apply(withManaged, { fieldManager: 'baton', force: true, dryRun: true })).toEqual(deploy);
  });

  it('WHEN delete THEN it sends DeleteOptions and returns the object; a 404 returns undefined', async () => {
    await setup();
    nock(SERVER)
      .delete('/apis/apps/v1/namespaces/app/deployments/web', { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Foreground' })
      .reply(200, deploy, JSON_TYPE)
      .delete('/apis/apps/v1/namespaces/app/deployments/web')
      .reply(404, notFound('deployments.apps "web" not found'), JSON_TYPE);
    const ref = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'app' };
    expect(await kube.delete(ref, { propagationPolicy: 'Foreground' })).toEqual(deploy);
    expect(await kube.delete(ref)).toBeUndefined();
  });

  it('GIVEN a server URL with a path prefix WHEN get THEN the prefix is kept', async () => {
    nock(SERVER)
      .get('/k8s/clusters/c-1/api/v1').reply(200, { resources: [{ name: 'configmaps', kind: 'ConfigMap', namespaced: true }] }, JSON_TYPE)
      .get('/k8s/clusters/c-1/api/v1/namespaces/app/configmaps/conf').reply(200, cm, JSON_TYPE);
    kube = await client({ url: `${SERVER}/k8s/clusters/c-1/` });
    expect(await kube.get({ apiVersion: 'v1', kind: 'ConfigMap', name: 'conf', namespace: 'app' })).toEqual(cm);
  });

  it.each([
    ['apply', (k: HttpKubeClient) => k.apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'x-' } }, { fieldManager: 'baton' })],
    ['get', (k: HttpKubeClient) => k.get({ apiVersion: 'v1', kind: 'ConfigMap', name: '' })],
    ['delete', (k: HttpKubeClient) => k.delete({ apiVersion: 'v1', kind: 'ConfigMap', name: '' })],
  ])('WHEN %s has no name THEN it refuses before sending anything', async (verb, call) => {
    await setup();
    await expect(call(kube)).rejects.toMatchObject({ code: 'KUBE_NO_NAME', message: `${verb} ConfigMap (v1): metadata.name is required` });
  });

  it('WHEN delete answers a success Status THEN it returns the ref as an object', async () => {
    await setup();
    nock(SERVER).delete('/api/v1/namespaces/app/configmaps/conf').reply(200, { kind: 'Status', status: 'Success' }, JSON_TYPE);
    expect(await kube.delete({ apiVersion: 'v1', kind: 'ConfigMap', name: 'conf', namespace: 'app' })).toEqual({
      apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'conf', namespace: 'app' },
    });
  });
});
