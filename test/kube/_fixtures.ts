/** Shared fixtures: a nock-mocked API server's discovery, and a client pointed at it. */
import nock from 'nock';
import { createKubeClient, type HttpKubeClient } from '../../src/kube/http-client.js';

export const SERVER = 'http://127.0.0.1:6443';
export const JSON_TYPE = { 'content-type': 'application/json' };

const CORE = {
  kind: 'APIResourceList',
  groupVersion: 'v1',
  resources: [
    { name: 'namespaces', kind: 'Namespace', namespaced: false },
    { name: 'configmaps', kind: 'ConfigMap', namespaced: true },
    { name: 'pods', kind: 'Pod', namespaced: true },
    { name: 'pods/status', kind: 'Pod', namespaced: true },
  ],
};
const APPS = {
  kind: 'APIResourceList',
  groupVersion: 'apps/v1',
  resources: [
    { name: 'deployments', kind: 'Deployment', namespaced: true },
    { name: 'deployments/scale', kind: 'Scale', namespaced: true },
    { name: 'statefulsets', kind: 'StatefulSet', namespaced: true },
  ],
};

/** Discovery for v1 and apps/v1, answerable any number of times. */
export function mockDiscovery(): nock.Scope {
  return nock(SERVER).persist().get('/api/v1').reply(200, CORE, JSON_TYPE).get('/apis/apps/v1').reply(200, APPS, JSON_TYPE);
}

export function client(extra: Record<string, unknown> = {}): Promise<HttpKubeClient> {
  return createKubeClient({ url: SERVER, token: 'secret-token', readRetries: 2, sleep: async () => {}, ...extra });
}

export function notFound(message: string): Record<string, unknown> {
  return { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404, message };
}
