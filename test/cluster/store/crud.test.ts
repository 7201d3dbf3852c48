/**
 * Contract: create, get, update (optimistic concurrency, generation, status subresource), dry run and
 * validation errors, against the Store directly.
 */
import { describe, expect, it } from 'vitest';
import type { Store } from '../../../src/cluster/store/index.js';
import { apiError, configMap, deployment, newStore, typeOf, types, type Loose, type Types } from './fixtures.js';

describe('create and get', () => {
  it('GIVEN a new ConfigMap WHEN created THEN the server fills uid, creationTimestamp and a resourceVersion (no generation: ConfigMaps have none)', () => {
    const store = newStore();
    const { cm } = types(store);
    const created = store.create(cm, 'default', configMap('a', { k: 'v' }));
    expect(created.metadata).toMatchObject({ name: 'a', namespace: 'default' });
    expect(created.metadata.generation).toBeUndefined();
    expect(created.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.metadata.creationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(store.get(cm, 'default', 'a')).toEqual(created);
    expect(created.metadata.resourceVersion).toBe(store.resourceVersion());
  });

  it('generateName gets a random five-character suffix', () => {
    const store = newStore();
    const created = store.create(types(store).cm, 'default', { metadata: { generateName: 'job-' }, data: {} });
    expect(created.metadata.name).toMatch(/^job-[a-z0-9]{5}$/);
  });

  it.each([
    ['a duplicate name is 409 AlreadyExists', 'default', 409, 'AlreadyExists', 'configmaps "dup" already exists'],
    ['a missing namespace is 404 naming the namespace', 'nowhere', 404, 'NotFound', 'namespaces "nowhere" not found'],
  ])('%s', (_name, ns, code, reason, message) => {
    const store = newStore();
    const { cm } = types(store);
    store.create(cm, 'default', configMap('dup'));
    const err = apiError(() => store.create(cm, ns, configMap('dup')));
    expect(err.httpCode).toBe(code);
    expect(err.status).toMatchObject({ kind: 'Status', status: 'Failure', reason, code, message });
  });

  it('get of a missing object is NotFound with the group-qualified resource', () => {
    const store = newStore();
    const err = apiError(() => store.get(types(store).deploy, 'default', 'web'));
    expect(err.status).toMatchObject({ code: 404, reason: 'NotFound', message: 'deployments.apps "web" not found', details: { name: 'web', group: 'apps', kind: 'deployments' } });
  });

  it('returned objects are immutable snapshots', () => {
    const store = newStore();
    const created = store.create(types(store).cm, 'default', configMap('a', { k: 'v' }));
    expect(() => {
      (created.data as Record<string, string>).k = 'changed';
    }).toThrow(TypeError);
  });
});

describe('update: optimistic concurrency and generation', () => {
  it('GIVEN two writers WHEN the second sends the stale resourceVersion THEN 409 Conflict with the real message', () => {
    const store = newStore();
    const { cm } = types(store);
    const v1 = store.create(cm, 'default', configMap('a', { k: '1' }));
    store.update(cm, 'default', 'a', { ...v1, data: { k: '2' } });
    const err = apiError(() => store.update(cm, 'default', 'a', { ...v1, data: { k: '3' } }));
    expect(err.status).toMatchObject({
      code: 409,
      reason: 'Conflict',
      message: 'Operation cannot be fulfilled on configmaps "a": the object has been modified; please apply your changes to the latest version and try again',
    });
    expect(store.get(cm, 'default', 'a').data).toEqual({ k: '2' });
  });

  it('an update without resourceVersion is unconditional', () => {
    const store = newStore();
    const { cm } = types(store);
    store.create(cm, 'default', configMap('a', { k: '1' }));
    const updated = store.update(cm, 'default', 'a', configMap('a', { k: '9' }));
    expect(updated.data).toEqual({ k: '9' });
  });

  it.each([
    ['a spec change bumps generation', (d: Loose): unknown => ({ ...d, spec: { ...d.spec, replicas: 5 } }), 2],
    ['a label change does not', (d: Loose): unknown => ({ ...d, metadata: { ...d.metadata, labels: { x: 'y' } } }), 1],
    ['a status change on the main resource is ignored', (d: Loose): unknown => ({ ...d, status: { replicas: 7 } }), 1],
  ])('%s', (_name, change, generation) => {
    const store = newStore();
    const { deploy } = types(store);
    const d = store.create(deploy, 'default', deployment('web'));
    const updated = store.update(deploy, 'default', 'web', change(d));
    expect(updated.metadata.generation).toBe(generation);
    expect(updated.status).toEqual({});
  });

  it.each([
    ['apps', 'deployments', 'Deployment', {}],
    ['apps', 'statefulsets', 'StatefulSet', { replicas: 0, availableReplicas: 0 }],
    ['apps', 'replicasets', 'ReplicaSet', { replicas: 0 }],
    ['apps', 'daemonsets', 'DaemonSet', { currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0 }],
  ])('GIVEN a new %s/%s WHEN created THEN it has the zero-valued status a real server returns, and generation 1', (group, resource, kind, status) => {
    const store = newStore();
    const created = store.create(typeOf(store, group, resource), 'default', { ...deployment('w'), kind });
    expect(created.status).toEqual(status);
    expect(created.metadata.generation).toBe(1);
  });

  it.each([
    ['batch', 'jobs', { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'j' }, spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } } } }, {}],
    ['batch', 'cronjobs', { apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name: 'c' }, spec: { schedule: '* * * * *', jobTemplate: { spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } } } } } }, {}],
    ['policy', 'poddisruptionbudgets', { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'p' }, spec: { minAvailable: 1 } }, { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 }],
    ['networking.k8s.io', 'ingresses', { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { name: 'i' }, spec: {} }, { loadBalancer: {} }],
  ])('GIVEN a new %s/%s WHEN created THEN its status is the zero value', (group, resource, body, status) => {
    const store = newStore();
    expect(store.create(typeOf(store, group, resource), 'default', body).status).toEqual(status);
  });

  it('an identical update is a no-op that keeps the resourceVersion', () => {
    const store = newStore();
    const { cm } = types(store);
    const v1 = store.create(cm, 'default', configMap('a', { k: '1' }));
    expect(store.update(cm, 'default', 'a', v1).metadata.resourceVersion).toBe(v1.metadata.resourceVersion);
  });

  it('GIVEN a Deployment WHEN its status subresource is updated THEN only status changes and generation stays', () => {
    const store = newStore();
    const { deploy } = types(store);
    const d = store.create(deploy, 'default', deployment('web'));
    const updated = store.update(deploy, 'default', 'web', { ...d, spec: { replicas: 99 }, status: { readyReplicas: 1, observedGeneration: 1 } }, { subresource: 'status', fieldManager: 'controller' });
    expect(updated.status).toEqual({ readyReplicas: 1, observedGeneration: 1 });
    expect((updated.spec as { replicas: number }).replicas).toBe(1);
    expect(updated.metadata.generation).toBe(1);
    expect(updated.metadata.managedFields?.find((m) => m.manager === 'controller')).toMatchObject({ operation: 'Update', subresource: 'status', fieldsV1: { 'f:status': { 'f:readyReplicas': {}, 'f:observedGeneration': {} } } });
  });
});

describe('dry run', () => {
  it.each([
    ['create', (s: Store, t: Types): unknown => s.create(t.cm, 'default', configMap('new'), { dryRun: true })],
    ['update', (s: Store, t: Types): unknown => s.update(t.cm, 'default', 'old', configMap('old', { k: 'dry' }), { dryRun: true })],
    ['merge patch', (s: Store, t: Types): unknown => s.patch(t.cm, 'default', 'old', 'merge', { data: { k: 'dry' } }, { dryRun: true })],
    ['apply', (s: Store, t: Types): unknown => s.patch(t.cm, 'default', 'old', 'apply', configMap('old', { k: 'dry' }), { dryRun: true, fieldManager: 'm', force: true })],
    ['delete', (s: Store, t: Types): unknown => s.delete(t.cm, 'default', 'old', { dryRun: true })],
  ])('a dry-run %s answers but persists nothing and emits no watch event', (_verb, write) => {
    const store = newStore();
    const t = types(store);
    store.create(t.cm, 'default', configMap('old', { k: 'v' }));
    const rv = store.resourceVersion();
    const events: unknown[] = [];
    const w = store.watch(t.cm, 'default', { resourceVersion: rv }, (e) => events.push(e));
    const answer = write(store, t);
    expect(answer).toBeDefined();
    w.stop();
    expect(events).toEqual([]);
    expect(store.resourceVersion()).toBe(rv);
    expect(store.get(t.cm, 'default', 'old').data).toEqual({ k: 'v' });
    expect(store.list(t.cm, 'default').items.map((o) => o.metadata.name)).toEqual(['kube-root-ca.crt', 'old']);
  });
});

describe('validation and defaulting', () => {
  it.each([
    ['a selector that does not match the template labels', (d: Loose) => { d.spec.template.metadata.labels = { app: 'other' }; }, 'spec.template.metadata.labels', '`selector` does not match template `labels`'],
    ['a container without an image', (d: Loose) => { delete d.spec.template.spec.containers[0].image; }, 'spec.template.spec.containers[0].image', 'Required value'],
    ['a missing selector', (d: Loose) => { delete d.spec.selector; }, 'spec.selector', 'Required value'],
    ['negative replicas', (d: Loose) => { d.spec.replicas = -1; }, 'spec.replicas', 'must be greater than or equal to 0'],
    ['an upper-case name', (d: Loose) => { d.metadata.name = 'Web'; }, 'metadata.name', 'a lowercase RFC 1123 subdomain'],
  ])('a Deployment with %s is 422 Invalid with a cause naming the field', (_name, breakIt, field, text) => {
    const store = newStore();
    const d = structuredClone(deployment('web')) as Loose;
    breakIt(d);
    const err = apiError(() => store.create(types(store).deploy, 'default', d));
    expect(err.httpCode).toBe(422);
    expect(err.status.reason).toBe('Invalid');
    expect(err.status.message).toMatch(/^Deployment\.apps "(web|Web)" is invalid: /);
    expect(err.status.details?.causes).toEqual(expect.arrayContaining([expect.objectContaining({ field, message: expect.stringContaining(text) })]));
  });

  it.each([
    ['a Service clusterIP', 'svc', { apiVersion: 'v1', kind: 'Service', metadata: { name: 's' }, spec: { ports: [{ port: 80 }] } }, (o: Loose) => { o.spec.clusterIP = '10.96.9.9'; }, 'spec.clusterIPs[0]'],
    ['a Deployment selector', 'deploy', deployment('web'), (o: Loose) => { o.spec.selector = { matchLabels: { app: 'web', v: '2' } }; o.spec.template.metadata.labels.v = '2'; }, 'spec.selector'],
    ['an immutable ConfigMap\'s data', 'cm', { ...configMap('c', { a: '1' }), immutable: true }, (o: Loose) => { o.data = { a: '2' }; }, 'data'],
    ['a StatefulSet serviceName', 'sts', { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'db' }, spec: { serviceName: 'db', selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i' }] } } } }, (o: Loose) => { o.spec.serviceName = 'other'; }, 'spec'],
  ])('changing %s is refused as immutable', (_name, kind, obj, change, field) => {
    const store = newStore();
    const t = (types(store) as Loose)[kind];
    const created = store.create(t, 'default', obj);
    const next = structuredClone(created) as Loose;
    change(next);
    const err = apiError(() => store.update(t, 'default', created.metadata.name ?? '', next));
    expect(err.httpCode).toBe(422);
    expect(err.status.details?.causes?.[0]?.field).toBe(field);
  });

  it('defaults what users expect to see', () => {
    const store = newStore();
    const t = types(store);
    const svc = store.create(t.svc, 'default', { metadata: { name: 's' }, spec: { ports: [{ port: 80 }] } });
    expect(svc.spec).toMatchObject({ type: 'ClusterIP', clusterIP: expect.stringMatching(/^10\.96\.\d+\.\d+$/), ports: [{ port: 80, protocol: 'TCP', targetPort: 80 }] });
    const d = store.create(t.deploy, 'default', deployment('web'));
    expect(d.spec).toMatchObject({ revisionHistoryLimit: 10, progressDeadlineSeconds: 600, strategy: { type: 'RollingUpdate' }, template: { spec: { restartPolicy: 'Always' } } });
    expect(store.get(t.ns, undefined, 'default').status).toEqual({ phase: 'Active' });
    const secret = store.create(t.secret, 'default', { metadata: { name: 'x' }, stringData: { password: 'hunter2' } });
    expect(secret).toMatchObject({ type: 'Opaque', data: { password: Buffer.from('hunter2').toString('base64') } });
    expect(secret.stringData).toBeUndefined();
  });

  it('a Job with the default restartPolicy Always is refused like on a real server', () => {
    const store = newStore();
    const job = { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'j' }, spec: { template: { spec: { containers: [{ name: 'c', image: 'i' }] } } } };
    const err = apiError(() => store.create(types(store).job, 'default', job));
    expect(err.status.details?.causes?.[0]).toMatchObject({ field: 'spec.template.spec.restartPolicy', type: 'FieldValueNotSupported' });
  });

  it('a body of the wrong kind is 400 BadRequest', () => {
    const store = newStore();
    const err = apiError(() => store.create(types(store).cm, 'default', { ...configMap('a'), kind: 'Secret' }));
    expect(err.status).toMatchObject({ code: 400, reason: 'BadRequest' });
  });
});

describe('Service allocation', () => {
  it('NodePort services get distinct node ports that survive an update without them', () => {
    const store = newStore();
    const { svc } = types(store);
    const body = (name: string): Loose => ({ metadata: { name }, spec: { type: 'NodePort', ports: [{ port: 80 }] } });
    const a = store.create(svc, 'default', body('a')) as Loose;
    const b = store.create(svc, 'default', body('b')) as Loose;
    expect(a.spec.ports[0].nodePort).not.toBe(b.spec.ports[0].nodePort);
    const updated = store.update(svc, 'default', 'a', body('a')) as Loose;
    expect(updated.spec.ports[0].nodePort).toBe(a.spec.ports[0].nodePort);
    expect(updated.spec.clusterIP).toBe(a.spec.clusterIP);
  });
});

describe('built-in kinds against the Kubernetes schemas', () => {
  it('GIVEN a wrongly typed field THEN the create is 400 with the Go decoder\'s message', () => {
    const store = newStore();
    const d: Loose = deployment('web');
    d.spec.replicas = 'three';
    const err = apiError(() => store.create(types(store).deploy, 'default', d));
    expect(err.status).toMatchObject({ code: 400, reason: 'BadRequest', message: 'Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32' });
  });

  it('checks nested lists and maps too (a container port given as a string)', () => {
    const store = newStore();
    const d: Loose = deployment('web');
    d.spec.template.spec.containers[0].ports[0].containerPort = '80';
    expect(apiError(() => store.create(types(store).deploy, 'default', d)).status.message).toContain('json: cannot unmarshal string into Go struct field ContainerPort.spec.template.spec.containers[0].ports[0].containerPort of type int32');
  });

  // The walker's paths and accepted JSON forms, pinned while it was made cheaper per write (issue #20).
  it.each<[string, (d: Loose) => void, string | undefined]>([
    ['a label value given as a number (a map element)', (d) => { d.metadata.labels = { app: 3 }; }, 'json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels.app of type string'],
    ['a selector that is a list (a message)', (d) => { d.spec.selector = []; }, 'json: cannot unmarshal array into Go struct field DeploymentSpec.spec.selector of type v1.LabelSelector'],
    ['containers that are an object (a list)', (d) => { d.spec.template.spec.containers = {}; }, 'json: cannot unmarshal object into Go struct field PodSpec.spec.template.spec.containers of type []v1.Container'],
    ['a resource limit given as a number (Quantity)', (d) => { d.spec.template.spec.containers[0].resources = { limits: { cpu: 1 } }; }, undefined],
    ['a resource limit given as a bool (Quantity)', (d) => { d.spec.template.spec.containers[0].resources = { limits: { cpu: true } }; }, 'json: cannot unmarshal bool into Go struct field ResourceRequirements.spec.template.spec.containers[0].resources.limits.cpu of type resource.Quantity'],
    ['maxSurge as a number and as a percentage (IntOrString)', (d) => { d.spec.strategy = { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: '25%' } }; }, undefined],
    ['maxSurge as an object (IntOrString)', (d) => { d.spec.strategy = { type: 'RollingUpdate', rollingUpdate: { maxSurge: {} } }; }, 'json: cannot unmarshal object into Go struct field RollingUpdateDeployment.spec.strategy.rollingUpdate.maxSurge of type intstr.IntOrString'],
    ['a template\'s creationTimestamp given as a number (Time)', (d) => { d.spec.template.metadata.creationTimestamp = 5; }, 'json: cannot unmarshal number into Go struct field ObjectMeta.spec.template.metadata.creationTimestamp of type v1.Time'],
    ['the first of two wrong values is the one reported', (d) => { d.spec.replicas = 'x'; d.spec.minReadySeconds = 'y'; }, 'json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32'],
  ])('%s', (_name, change, message) => {
    const store = newStore();
    const d: Loose = deployment('web');
    change(d);
    if (message === undefined) expect(() => store.create(types(store).deploy, 'default', d)).not.toThrow();
    else expect(apiError(() => store.create(types(store).deploy, 'default', d)).status.message).toBe(`Deployment in version "v1" cannot be handled as a Deployment: ${message}`);
  });

  it('an unknown field inside a map element and in a list element are named by their paths', () => {
    const store = newStore();
    const d: Loose = deployment('web');
    d.spec.template.spec.containers[0].resources = { limits: { cpu: '1' } };
    d.spec.template.spec.containers.push({ name: 'second', image: 'busybox', shade: 'blue' });
    d.spec.template.spec.volumes = [{ name: 'v', emptyDir: {}, tint: 1 }];
    const warnings: string[] = [];
    store.create(types(store).deploy, 'default', d, { fieldValidation: 'Warn', onWarning: (m) => warnings.push(m) });
    expect(warnings).toEqual(['unknown field "spec.template.spec.containers[1].shade"', 'unknown field "spec.template.spec.volumes[0].tint"']);
  });

  it('GIVEN an unknown field THEN Strict refuses it, Warn warns, and inline fields (a volume\'s configMap) are known', () => {
    const store = newStore();
    const d: Loose = deployment('web');
    d.spec.template.spec.containers[0].colour = 'red';
    d.spec.template.spec.volumes = [{ name: 'cfg', configMap: { name: 'cfg' } }];
    const strict = apiError(() => store.create(types(store).deploy, 'default', d, { fieldValidation: 'Strict' }));
    expect(strict.status.message).toBe('strict decoding error: unknown field "spec.template.spec.containers[0].colour"');
    const warnings: string[] = [];
    store.create(types(store).deploy, 'default', d, { fieldValidation: 'Warn', onWarning: (m) => warnings.push(m) });
    expect(warnings).toEqual(['unknown field "spec.template.spec.containers[0].colour"']);
  });
});
