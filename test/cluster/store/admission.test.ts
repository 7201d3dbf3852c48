/**
 * Contract: admission as a real API server runs it for the plugins users meet: every namespace's
 * `default` ServiceAccount and `kube-root-ca.crt`, the ServiceAccount check on pods, LimitRange
 * defaults and bounds, ResourceQuota refusals and usage in status.
 */
import { describe, expect, it } from 'vitest';
import type { Store } from '../../../src/cluster/store/index.js';
import { apiError, configMap, newStore, pod, typeOf, types, type Loose } from './fixtures.js';

function withNamespace(name = 'team'): Store {
  const store = newStore();
  store.create(types(store).ns, undefined, { metadata: { name } });
  return store;
}

const podWith = (name: string, resources: Record<string, unknown> = {}, serviceAccountName?: string): Loose => {
  const p: Loose = pod(name);
  p.spec.containers[0].resources = resources;
  if (serviceAccountName) p.spec.serviceAccountName = serviceAccountName;
  return p;
};

describe('namespace content', () => {
  it('GIVEN a new namespace THEN it has the default ServiceAccount and the kube-root-ca.crt ConfigMap, made by kube-controller-manager', () => {
    const store = withNamespace();
    const t = types(store);
    expect(store.get(typeOf(store, '', 'serviceaccounts'), 'team', 'default').metadata.name).toBe('default');
    const ca = store.get(t.cm, 'team', 'kube-root-ca.crt');
    expect(Object.keys(ca.data as object)).toEqual(['ca.crt']);
    expect(ca.metadata.managedFields?.[0]?.manager).toBe('kube-controller-manager');
  });

  it('the system namespaces have them too, and the CA is the cluster\'s when it has one', () => {
    const store = newStore({ rootCaPem: '-----BEGIN CERTIFICATE-----\nabc\n-----END CERTIFICATE-----\n' });
    for (const ns of ['default', 'kube-system', 'kube-public', 'kube-node-lease']) {
      expect(store.get(types(store).cm, ns, 'kube-root-ca.crt').data).toEqual({ 'ca.crt': '-----BEGIN CERTIFICATE-----\nabc\n-----END CERTIFICATE-----\n' });
    }
  });
});

describe('ServiceAccount admission', () => {
  it('GIVEN a pod naming a ServiceAccount that does not exist THEN it is 403 Forbidden with the real message', () => {
    const store = withNamespace();
    const err = apiError(() => store.create(types(store).pod, 'team', podWith('p', {}, 'missing')));
    expect(err.status).toMatchObject({ code: 403, reason: 'Forbidden', message: 'pods "p" is forbidden: error looking up service account team/missing: serviceaccount "missing" not found' });
  });

  it('GIVEN the ServiceAccount exists (or the default one is used) THEN the pod is created', () => {
    const store = withNamespace();
    store.create(typeOf(store, '', 'serviceaccounts'), 'team', { metadata: { name: 'runner' } });
    expect(store.create(types(store).pod, 'team', podWith('a', {}, 'runner')).metadata.name).toBe('a');
    expect((store.create(types(store).pod, 'team', podWith('b')) as Loose).spec.serviceAccountName).toBe('default');
  });
});

describe('LimitRange', () => {
  const limits = { metadata: { name: 'lr' }, spec: { limits: [{ type: 'Container', default: { cpu: '500m', memory: '256Mi' }, defaultRequest: { cpu: '100m' }, max: { cpu: '1' } }] } };

  it('GIVEN a LimitRange WHEN a pod without resources is created THEN its containers get the defaults, noted in kubernetes.io/limit-ranger', () => {
    const store = withNamespace();
    store.create(typeOf(store, '', 'limitranges'), 'team', limits);
    const p: Loose = store.create(types(store).pod, 'team', podWith('p'));
    expect(p.spec.containers[0].resources).toEqual({ limits: { cpu: '500m', memory: '256Mi' }, requests: { cpu: '100m', memory: '256Mi' } });
    expect(p.metadata.annotations['kubernetes.io/limit-ranger']).toBe('LimitRanger plugin set: cpu, memory request for container c; cpu, memory limit for container c');
  });

  it('a LimitRange\'s default request falls back to its default limit, as the API defaults it', () => {
    const store = withNamespace();
    const lr: Loose = store.create(typeOf(store, '', 'limitranges'), 'team', limits);
    expect(lr.spec.limits[0].defaultRequest).toEqual({ cpu: '100m', memory: '256Mi' });
  });

  it('GIVEN a LimitRange max WHEN a container asks for more THEN the pod is 403 Forbidden', () => {
    const store = withNamespace();
    store.create(typeOf(store, '', 'limitranges'), 'team', limits);
    const err = apiError(() => store.create(types(store).pod, 'team', podWith('big', { limits: { cpu: '2' } })));
    expect(err.status.message).toBe('pods "big" is forbidden: maximum cpu usage per Container is 1, but limit is 2');
  });
});

describe('ResourceQuota', () => {
  it('GIVEN a quota of 2 pods WHEN a third is created THEN it is refused, and status.used follows creations and deletions', () => {
    const store = withNamespace();
    const quota = typeOf(store, '', 'resourcequotas');
    store.create(quota, 'team', { metadata: { name: 'q' }, spec: { hard: { pods: '2', configmaps: '5' } } });
    store.create(types(store).pod, 'team', podWith('a'));
    store.create(types(store).pod, 'team', podWith('b'));
    const err = apiError(() => store.create(types(store).pod, 'team', podWith('c')));
    expect(err.status).toMatchObject({ code: 403, reason: 'Forbidden', message: 'pods "c" is forbidden: exceeded quota: q, requested: pods=1, used: pods=2, limited: pods=2' });
    expect(store.get(quota, 'team', 'q').status).toEqual({ hard: { pods: '2', configmaps: '5' }, used: { pods: '2', configmaps: '1' } });
    store.delete(types(store).pod, 'team', 'a');
    expect((store.get(quota, 'team', 'q').status as Loose).used.pods).toBe('1');
    expect(store.create(types(store).pod, 'team', podWith('c')).metadata.name).toBe('c');
  });

  it('GIVEN a compute quota WHEN a pod names no requests THEN it is refused; with requests it counts them', () => {
    const store = withNamespace();
    const quota = typeOf(store, '', 'resourcequotas');
    store.create(quota, 'team', { metadata: { name: 'compute' }, spec: { hard: { 'requests.cpu': '1', 'requests.memory': '1Gi' } } });
    expect(apiError(() => store.create(types(store).pod, 'team', podWith('bare'))).status.message).toBe('pods "bare" is forbidden: failed quota: compute: must specify requests.cpu for: c; requests.memory for: c');
    store.create(types(store).pod, 'team', podWith('ok', { requests: { cpu: '600m', memory: '512Mi' } }));
    expect((store.get(quota, 'team', 'compute').status as Loose).used).toEqual({ 'requests.cpu': '600m', 'requests.memory': '512Mi' });
    expect(apiError(() => store.create(types(store).pod, 'team', podWith('more', { requests: { cpu: '600m', memory: '1Mi' } }))).status.message).toBe(
      'pods "more" is forbidden: exceeded quota: compute, requested: requests.cpu=600m, used: requests.cpu=600m, limited: requests.cpu=1',
    );
  });

  it('counts objects of any resource with count/<resource>.<group>, and a dry run is refused too', () => {
    const store = withNamespace();
    store.create(typeOf(store, '', 'resourcequotas'), 'team', { metadata: { name: 'q' }, spec: { hard: { 'count/configmaps': '1' } } });
    expect(apiError(() => store.create(types(store).cm, 'team', configMap('one'), { dryRun: true })).httpCode).toBe(403);
  });
});
