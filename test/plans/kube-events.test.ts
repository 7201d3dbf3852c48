/**
 * Kubernetes Events for plans: which engine events become which Kubernetes Events (pure), and the
 * recorder against the simulated API server (uids so `kubectl describe` finds them, masking, a full
 * queue, an RBAC refusal of events turning recording off, other 403s only dropping one event).
 */
import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createKubeClient, type HttpKubeClient } from '../../src/kube/http-client.js';
import type { KubeObject } from '../../src/kube/object.js';
import type { EngineEvent } from '../../src/plans/events.js';
import { eventsFor, KubeEventRecorder, truncateBytes } from '../../src/plans/kube-events.js';
import type { PlanRun } from '../../src/plans/state.js';
import { startTestCluster, type TestCluster } from '../helpers/cluster.js';

const instance = { name: 'cache', namespace: 'shop' };
const inRun = { instance, runId: 'r1', plan: 'deploy' };
const inStep = { ...inRun, phase: 'main', step: 'config' };
const run = { id: 'r1', plan: 'deploy', reason: 'new instance', state: { status: 'FATAL_ERROR' } } as unknown as PlanRun;
const checkpoint = { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'shop', name: 'baton-checkpoint-cache' };
const cm = { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'shop', name: 'settings' };

describe('which Kubernetes Events an engine event calls for', () => {
  it.each<[string, EngineEvent, { reason: string; type: string; on: string; message: RegExp }[]]>([
    ['a plan start is Normal PlanStarted on the instance', { ...inRun, type: 'plan-started', run, resumed: false, warnings: [] }, [{ reason: 'PlanStarted', type: 'Normal', on: 'baton-checkpoint-cache', message: /shop\/cache: plan deploy started \(new instance\)/ }]],
    ['a resumed plan says so', { ...inRun, type: 'plan-started', run, resumed: true, warnings: [] }, [{ reason: 'PlanStarted', type: 'Normal', on: 'baton-checkpoint-cache', message: /resumed/ }]],
    ['a phase end is Normal PhaseComplete', { ...inRun, type: 'phase-complete', phase: 'main' }, [{ reason: 'PhaseComplete', type: 'Normal', on: 'baton-checkpoint-cache', message: /phase main complete/ }]],
    ['a retried step is Warning StepRetrying with the error and the wait', { ...inStep, type: 'step-error', error: { code: 'KUBE_TOOMANYREQUESTS', message: 'slow down' }, attempt: 2, retryInMs: 1500 }, [{ reason: 'StepRetrying', type: 'Warning', on: 'baton-checkpoint-cache', message: /attempt 2 failed, retrying in 1.5s: slow down/ }]],
    ['a completed step is Normal Applied on each applied object', { ...inStep, type: 'step-complete', applied: 2, deleted: 0, objects: [cm, { ...cm, name: 'other', uid: 'u-2' }] }, [
      { reason: 'Applied', type: 'Normal', on: 'settings', message: /applied by Baton: shop\/cache plan deploy, phase main, step config/ },
      { reason: 'Applied', type: 'Normal', on: 'other', message: /step config/ },
    ]],
    ['a failed step is Warning StepFailed on the instance and on the object it failed on', { ...inStep, type: 'step-failed', error: { code: 'GATE_FAILED', message: 'Job failed', object: 'ConfigMap shop/settings' }, object: cm }, [
      { reason: 'StepFailed', type: 'Warning', on: 'baton-checkpoint-cache', message: /deploy\/main\/config failed: GATE_FAILED: Job failed/ },
      { reason: 'StepFailed', type: 'Warning', on: 'settings', message: /GATE_FAILED/ },
    ]],
    ['a failed plan is Warning PlanFailed with its state', { ...inRun, type: 'plan-failed', run, error: { code: 'X', message: 'boom' } }, [{ reason: 'PlanFailed', type: 'Warning', on: 'baton-checkpoint-cache', message: /plan deploy FATAL_ERROR: boom/ }]],
    ['a refusal is Warning ChangeRefused', { instance, type: 'refused', refusal: { code: 'IMMUTABLE', message: 'STORAGE is immutable', at: 't', details: {} } }, [{ reason: 'ChangeRefused', type: 'Warning', on: 'baton-checkpoint-cache', message: /change refused: STORAGE is immutable/ }]],
    ['a waiting step records nothing (it changes too often)', { ...inStep, type: 'step-waiting', object: 'x', message: 'y' }, []],
  ])('%s', (_name, event, expected) => {
    const got = eventsFor(event).map((e) => ({ reason: e.reason, type: e.type, on: e.regarding.name, message: e.message }));
    expect(got).toEqual(expected.map((x) => ({ ...x, message: expect.stringMatching(x.message) })));
  });

  it.each([
    ['a short message stays as it is', 'héllo', 1024, 'héllo'],
    ['a long ASCII message is cut to the byte limit with a marker', 'x'.repeat(2000), 1024, `${'x'.repeat(1021)}...`],
    ['a multi-byte message is cut on a character boundary', 'é'.repeat(600), 1024, `${'é'.repeat(510)}...`],
  ])('%s', (_name, text, max, expected) => {
    const out = truncateBytes(text, max);
    expect(out).toBe(expected);
    expect(Buffer.byteLength(out)).toBeLessThanOrEqual(max);
  });

  it('puts instance events on the checkpoint ConfigMap in the instance namespace', () => {
    expect(eventsFor({ ...inRun, type: 'phase-complete', phase: 'p' })[0]?.regarding).toEqual(checkpoint);
  });
});

describe('the recorder against the simulated API server', () => {
  let cluster: TestCluster;
  let client: HttpKubeClient;

  beforeAll(async () => {
    cluster = await startTestCluster();
    client = await createKubeClient({ url: cluster.url });
    await client.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } }, { fieldManager: 'test' });
    await client.apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'baton-checkpoint-cache', namespace: 'shop' } }, { fieldManager: 'test' });
    await client.apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace: 'shop' } }, { fieldManager: 'test' });
  });
  afterAll(async () => {
    client.close();
    await cluster.stop();
  });
  afterEach(() => nock.cleanAll());

  const events = async (): Promise<KubeObject[]> => (await client.list('v1', 'Event', 'shop')).items;

  it('GIVEN plan events WHEN recorded THEN core/v1 Events exist with the objects uids, and kubectl describe shows them', async () => {
    const recorder = new KubeEventRecorder(client, { reportingInstance: 'test-agent' });
    const uid = (await client.get({ ...cm }))?.metadata.uid;
    recorder.record({ ...inRun, type: 'plan-started', run, resumed: false, warnings: [] });
    recorder.record({ ...inStep, type: 'step-complete', applied: 1, deleted: 0, objects: [{ ...cm, ...(uid ? { uid } : {}) }] });
    await recorder.flush();
    expect(recorder.posted).toBe(2);
    const all = await events();
    const applied = all.find((e) => e['reason'] === 'Applied');
    expect(applied).toMatchObject({ type: 'Normal', involvedObject: { kind: 'ConfigMap', name: 'settings', namespace: 'shop', uid }, source: { component: 'baton' }, reportingInstance: 'test-agent', count: 1 });
    const started = all.find((e) => e['reason'] === 'PlanStarted');
    // The instance's ConfigMap uid was looked up, so describe finds the event by uid too.
    expect(started).toMatchObject({ involvedObject: { name: 'baton-checkpoint-cache', uid: (await client.get(checkpoint))?.metadata.uid } });
    const described = await cluster.kubectl(['describe', 'configmap', 'settings', '-n', 'shop']);
    expect(described.stdout).toMatch(/Normal\s+Applied\s+.*baton\s+applied by Baton: shop\/cache plan deploy, phase main, step config/);
    const described2 = await cluster.kubectl(['describe', 'configmap', 'baton-checkpoint-cache', '-n', 'shop']);
    expect(described2.stdout).toContain('plan deploy started');
  });

  it('GIVEN the instance ConfigMap re-created (a new uid) WHEN a new plan starts THEN its events carry the new uid', async () => {
    const recorder = new KubeEventRecorder(client);
    recorder.record({ ...inRun, type: 'plan-started', run, resumed: false, warnings: [] });
    await recorder.flush();
    await client.delete(checkpoint);
    await client.apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'baton-checkpoint-cache', namespace: 'shop' } }, { fieldManager: 'test' });
    const newUid = (await client.get(checkpoint))?.metadata.uid;
    recorder.record({ ...inRun, runId: 'r2', type: 'plan-started', run: { ...run, reason: 'again' }, resumed: false, warnings: [] });
    await recorder.flush();
    const started = (await events()).filter((e) => e['reason'] === 'PlanStarted' && String(e['message']).includes('(again)'));
    expect(started.map((e) => (e['involvedObject'] as { uid?: string }).uid)).toEqual([newUid]);
  });

  it('GIVEN sensitive values WHEN a message quotes one THEN the Event carries it masked', async () => {
    const recorder = new KubeEventRecorder(client);
    recorder.listener(() => ['hunter2-secret'])({ ...inRun, type: 'plan-failed', run, error: { code: 'KUBE_INVALID', message: 'data.password: Invalid value: "hunter2-secret"' } });
    await recorder.flush();
    const failed = (await events()).filter((e) => e['reason'] === 'PlanFailed');
    expect(failed).toHaveLength(1);
    expect(JSON.stringify(failed)).not.toContain('hunter2-secret');
    expect(failed[0]?.['message']).toContain('data.password: Invalid value');
  });

  it('GIVEN a refused change of an instance whose namespace does not exist yet WHEN recorded THEN the ChangeRefused Event lands in default, naming the instance (#11 item 13)', async () => {
    const recorder = new KubeEventRecorder(client);
    const fresh = { name: 'newcomer', namespace: 'not-created-yet' };
    recorder.record({ instance: fresh, type: 'refused', refusal: { code: 'INVALID_CONTENT', message: 'instances/not-created-yet/newcomer.yaml:3:1: bad', at: 't', details: {} } });
    await recorder.flush();
    expect(recorder.posted).toBe(1);
    expect(await client.get({ apiVersion: 'v1', kind: 'Namespace', name: 'not-created-yet' })).toBeUndefined();
    const refused = (await client.list('v1', 'Event', 'default')).items.filter((e) => e['reason'] === 'ChangeRefused');
    expect(refused).toHaveLength(1);
    expect(refused[0]).toMatchObject({ involvedObject: { kind: 'ConfigMap', namespace: 'not-created-yet', name: 'baton-checkpoint-newcomer' }, message: expect.stringContaining('not-created-yet/newcomer: change refused') });
  });

  it('GIVEN the API forbids creating events WHEN recording THEN it logs once, stops recording, and never throws', async () => {
    const logs: string[] = [];
    nock(cluster.url, { allowUnmocked: true }).post('/api/v1/namespaces/shop/events').times(1).reply(403, { kind: 'Status', code: 403, reason: 'Forbidden', message: 'events is forbidden: User "baton" cannot create resource "events"' }, { 'content-type': 'application/json' });
    const recorder = new KubeEventRecorder(client, { concurrency: 1, log: (_l, m) => logs.push(m) });
    for (let i = 0; i < 5; i++) recorder.record({ ...inRun, type: 'phase-complete', phase: `p${i}` });
    await recorder.flush();
    expect(recorder.posted).toBe(0);
    expect(logs).toEqual([expect.stringContaining('Kubernetes Events are not recorded: events is forbidden')]);
    recorder.record({ ...inRun, type: 'phase-complete', phase: 'later' });
    await recorder.flush();
    expect(recorder.posted).toBe(0);
  });

  it('GIVEN the API forbids reading the object a step failed on WHEN recording THEN the Event is still posted, without a uid, and recording stays on', async () => {
    const logs: string[] = [];
    nock(cluster.url, { allowUnmocked: true }).get('/api/v1/namespaces/shop/configmaps/settings').times(1).reply(403, { kind: 'Status', code: 403, reason: 'Forbidden', message: 'configmaps "settings" is forbidden: User "baton" cannot get resource "configmaps"' }, { 'content-type': 'application/json' });
    const recorder = new KubeEventRecorder(client, { log: (_l, m) => logs.push(m) });
    recorder.record({ ...inStep, step: 'uid-forbidden', type: 'step-failed', error: { code: 'KUBE_FORBIDDEN', message: 'no RBAC' }, object: cm });
    await recorder.flush();
    expect(recorder.posted).toBe(2);
    expect(recorder.dropped).toBe(0);
    expect(logs).toEqual([]);
    const onSettings = (await events()).filter((e) => e['reason'] === 'StepFailed' && String(e['message']).includes('uid-forbidden') && (e['involvedObject'] as Record<string, unknown>)['name'] === 'settings');
    expect(onSettings).toHaveLength(1);
    expect(onSettings[0]?.['involvedObject']).not.toHaveProperty('uid');
    recorder.record({ ...inRun, type: 'phase-complete', phase: 'after-uid-forbidden' });
    await recorder.flush();
    expect(recorder.posted).toBe(3);
  });

  it.each([
    ['a namespace being terminated', 'events "x" is forbidden: unable to create new content in namespace shop because it is being terminated'],
    ['an exceeded quota', 'events "x" is forbidden: exceeded quota: events-quota, requested: count/events=1, used: count/events=10, limited: count/events=10'],
  ])('GIVEN creating an event is refused with 403 for %s WHEN recording THEN that event is dropped with a warning and later events are still posted', async (_name, message) => {
    const logs: string[] = [];
    nock(cluster.url, { allowUnmocked: true }).post('/api/v1/namespaces/shop/events').times(1).reply(403, { kind: 'Status', code: 403, reason: 'Forbidden', message }, { 'content-type': 'application/json' });
    const recorder = new KubeEventRecorder(client, { concurrency: 1, log: (_l, m) => logs.push(m) });
    recorder.record({ ...inRun, type: 'phase-complete', phase: 'refused-403' });
    await recorder.flush();
    expect(recorder.posted).toBe(0);
    expect(recorder.dropped).toBe(1);
    expect(logs).toEqual([expect.stringContaining(message)]);
    expect(logs[0]).not.toContain('Kubernetes Events are not recorded');
    recorder.record({ ...inRun, type: 'phase-complete', phase: 'after-403' });
    await recorder.flush();
    expect(recorder.posted).toBe(1);
  });

  it('GIVEN an API server that does not answer WHEN flushing THEN flush gives up after its timeout and drops what is queued', async () => {
    nock(cluster.url, { allowUnmocked: true }).persist().post('/api/v1/namespaces/shop/events').delay(5_000).reply(201, {});
    const slow = await createKubeClient({ url: cluster.url, timeoutMs: 10_000 });
    const recorder = new KubeEventRecorder(slow, { concurrency: 1 });
    for (let i = 0; i < 4; i++) recorder.record({ ...inRun, type: 'phase-complete', phase: `s${i}` });
    const started = Date.now();
    await recorder.flush(300);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(recorder.dropped).toBe(3);
    expect(recorder.posted).toBe(0);
    slow.close();
  });

  it('GIVEN an API server failing every event WHEN many are recorded THEN one warning is logged, not one per event', async () => {
    nock(cluster.url, { allowUnmocked: true }).persist().post('/api/v1/namespaces/shop/events').reply(500, { kind: 'Status', code: 500, reason: 'InternalError', message: 'etcd is down' }, { 'content-type': 'application/json' });
    const logs: string[] = [];
    const recorder = new KubeEventRecorder(client, { log: (_l, m) => logs.push(m) });
    for (let i = 0; i < 6; i++) recorder.record({ ...inRun, type: 'phase-complete', phase: `f${i}` });
    await recorder.flush();
    expect(recorder.dropped).toBe(6);
    expect(logs).toEqual([expect.stringContaining('etcd is down')]);
  });

  it('GIVEN more events than the queue holds WHEN recorded at once THEN the surplus is dropped and counted', async () => {
    const recorder = new KubeEventRecorder(client, { maxQueued: 3, concurrency: 1 });
    for (let i = 0; i < 10; i++) recorder.record({ ...inRun, type: 'phase-complete', phase: `q${i}` });
    await recorder.flush();
    // One goes in flight at once, three wait, the rest are dropped.
    expect(recorder.posted).toBe(4);
    expect(recorder.dropped).toBe(6);
  });
});
