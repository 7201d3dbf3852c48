import http from 'node:http';
import type { AddressInfo } from 'node:net';
import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createKubeClient } from '../../src/kube/http-client.js';
import { KubeApiError, KubeTransportError } from '../../src/kube/errors.js';
import { parseRetryAfter } from '../../src/kube/status.js';
import { JSON_TYPE, SERVER, client, mockDiscovery } from './_fixtures.js';

const ref = { apiVersion: 'v1', kind: 'ConfigMap', name: 'conf', namespace: 'app' };
const path = '/api/v1/namespaces/app/configmaps/conf';
const obj = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'conf', namespace: 'app' } };

describe('error mapping', () => {
  beforeAll(() => nock.disableNetConnect());
  afterAll(() => nock.enableNetConnect());
  afterEach(() => nock.cleanAll());

  it.each([
    [409, 'Conflict', { kind: 'Status', reason: 'Conflict', code: 409, message: 'the object has been modified' }, 'the object has been modified'],
    [422, 'Invalid', { kind: 'Status', reason: 'Invalid', code: 422, message: 'spec.x: Invalid value', details: { causes: [{ field: 'spec.x' }] } }, 'spec.x: Invalid value'],
    [403, 'Forbidden', { kind: 'Status', reason: 'Forbidden', code: 403, message: 'forbidden' }, 'forbidden'],
    [500, 'InternalError', 'upstream exploded', 'HTTP 500: upstream exploded'],
    [401, 'Unauthorized', '', 'HTTP 401'],
  ])('GIVEN the server answers %i WHEN update THEN a KubeApiError with reason %s and the server message', async (code, reason, body, message) => {
    mockDiscovery();
    nock(SERVER).put(path).reply(code, body, typeof body === 'string' ? { 'content-type': 'text/plain' } : JSON_TYPE);
    const kube = await client();
    const err: unknown = await kube.update(obj).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KubeApiError);
    expect((err as KubeApiError).status).toBe(code);
    expect((err as KubeApiError).reason).toBe(reason);
    expect((err as KubeApiError).message).toBe(message);
    expect((err as KubeApiError).code).toBe(`KUBE_${reason.toUpperCase()}`);
    kube.close();
  });

  it('GIVEN 429 with Retry-After WHEN a read THEN it waits as told and retries until it succeeds', async () => {
    mockDiscovery();
    nock(SERVER).get(path).reply(429, { kind: 'Status', reason: 'TooManyRequests', code: 429 }, { ...JSON_TYPE, 'retry-after': '2' });
    nock(SERVER).get(path).reply(503, 'busy', { 'retry-after': '1' });
    nock(SERVER).get(path).reply(200, obj, JSON_TYPE);
    const waits: number[] = [];
    const kube = await createKubeClient({ url: SERVER, readRetries: 3, sleep: async (ms) => void waits.push(ms) });
    expect(await kube.get(ref)).toEqual(obj);
    expect(waits).toEqual([2000, 1000]);
    kube.close();
  });

  it('GIVEN a read that keeps answering 503 WHEN the retries are used up THEN the last KubeApiError is thrown with its Retry-After', async () => {
    mockDiscovery();
    nock(SERVER).get(path).times(3).reply(503, 'busy', { 'retry-after': '30' });
    const waits: number[] = [];
    const kube = await createKubeClient({ url: SERVER, readRetries: 2, maxRetryWaitMs: 5000, sleep: async (ms) => void waits.push(ms) });
    const err: unknown = await kube.get(ref).catch((e: unknown) => e);
    expect((err as KubeApiError).retryAfterSeconds).toBe(30);
    expect(waits).toEqual([5000, 5000]);
    kube.close();
  });

  it('GIVEN a write answered 429 WHEN create THEN it is not retried (the engine decides)', async () => {
    mockDiscovery();
    nock(SERVER).post('/api/v1/namespaces/app/configmaps').reply(429, 'slow down', { 'retry-after': '1' });
    const kube = await client();
    const err: unknown = await kube.create(obj).catch((e: unknown) => e);
    expect((err as KubeApiError).reason).toBe('TooManyRequests');
    expect((err as KubeApiError).retryAfterSeconds).toBe(1);
    kube.close();
  });

  it('GIVEN an unknown kind WHEN resourceFor THEN discovery refreshes once and then throws NotFound naming the kind', async () => {
    mockDiscovery();
    const kube = await client();
    await kube.resourceFor('v1', 'ConfigMap');
    const err: unknown = await kube.resourceFor('v1', 'Widget').catch((e: unknown) => e);
    expect((err as KubeApiError).reason).toBe('NotFound');
    expect((err as KubeApiError).message).toBe('the server has no resource for kind "Widget" in apiVersion "v1"');
    kube.close();
  });

  it('GIVEN a CRD served after the first lookup WHEN resourceFor misses THEN the refreshed discovery finds it', async () => {
    nock(SERVER).get('/apis/example.com/v1').reply(200, { resources: [] }, JSON_TYPE);
    nock(SERVER).get('/apis/example.com/v1').reply(200, { resources: [{ name: 'widgets', kind: 'Widget', namespaced: true }] }, JSON_TYPE);
    const kube = await client();
    await expect(kube.resourceFor('example.com/v1', 'Widget')).rejects.toBeInstanceOf(KubeApiError);
    await expect(kube.resourceFor('example.com/v1', 'Widget')).resolves.toEqual({ group: 'example.com', version: 'v1', resource: 'widgets', kind: 'Widget', namespaced: true });
    kube.close();
  });

  it('GIVEN an unknown group WHEN resourceFor THEN NotFound (a 404 group is an empty group)', async () => {
    nock(SERVER).get('/apis/nope.io/v1').reply(404, 'not found');
    const kube = await client();
    await expect(kube.resourceFor('nope.io/v1', 'Thing')).rejects.toMatchObject({ reason: 'NotFound', status: 404 });
    kube.close();
  });

  it.each([
    ['seconds', '7', 7],
    ['an HTTP date 5 s ahead', new Date(Date.UTC(2030, 0, 1, 0, 0, 5)).toUTCString(), 5],
    ['nothing', undefined, undefined],
    ['garbage', 'soon', undefined],
  ])('Retry-After given as %s is read as %s seconds', (_label, header, seconds) => {
    expect(parseRetryAfter(header, Date.UTC(2030, 0, 1))).toBe(seconds);
  });
});

describe('transport failures', () => {
  it('GIVEN nothing listens WHEN a request is made THEN a KubeTransportError with the socket error code', async () => {
    const server = http.createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    await new Promise((r) => server.close(r));
    const kube = await createKubeClient({ url: `http://127.0.0.1:${port}` });
    const err: unknown = await kube.resourceFor('v1', 'Pod').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KubeTransportError);
    expect((err as KubeTransportError).context.code).toBe('ECONNREFUSED');
    kube.close();
  });

  it('GIVEN a server that never answers WHEN the deadline passes THEN a KubeTransportError says so', async () => {
    const server = http.createServer(() => { /* never answers */ });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    const kube = await createKubeClient({ url: `http://127.0.0.1:${port}`, timeoutMs: 100 });
    const err: unknown = await kube.resourceFor('v1', 'Pod').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KubeTransportError);
    expect((err as Error).message).toBe('GET /api/v1: no answer within 100 ms');
    kube.close();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });
});
