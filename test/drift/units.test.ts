import { describe, expect, it } from 'vitest';
import { applyWouldChange, decideRepairs, renderedDifferences, type DriftedObject } from '../../src/drift/index.js';
import { quantity } from '../../src/drift/compare.js';
import { instanceSelectors, INSTANCES_PER_LIST } from '../../src/drift/live.js';
import type { KubeObject } from '../../src/kube/object.js';

const deployment = (spec: Record<string, unknown>, labels: Record<string, string> = { app: 'web' }): KubeObject => ({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', labels }, spec });

describe('renderedDifferences: the local comparison that picks suspects', () => {
  it('ignores what the framework does not render: defaults, extra labels, extra list items, status', () => {
    const rendered = deployment({ template: { spec: { containers: [{ name: 'web', image: 'nginx', resources: { requests: { cpu: '0.5', memory: '1Gi' } } }] } } });
    const live: KubeObject = {
      ...deployment({ replicas: 7, progressDeadlineSeconds: 600, template: { spec: { dnsPolicy: 'ClusterFirst', containers: [{ name: 'sidecar', image: 'envoy' }, { name: 'web', image: 'nginx', imagePullPolicy: 'Always', resources: { requests: { cpu: '500m', memory: '1024Mi' } } }] } } }, { app: 'web', 'pod-template-hash': 'x' }),
      status: { replicas: 7 },
    };
    expect(renderedDifferences(rendered, live)).toEqual([]);
  });

  it('names changed, removed and re-ordered rendered values', () => {
    const rendered = deployment({ replicas: 2, template: { spec: { containers: [{ name: 'web', image: 'nginx:1', args: ['--a', '--b'] }] } } });
    const live = deployment({ replicas: 3, template: { spec: { containers: [{ name: 'web', image: 'nginx:2', args: ['--b', '--a'] }] } } }, {});
    expect(renderedDifferences(rendered, live)).toEqual(['.spec.replicas', '.spec.template.spec.containers[name="web"].image', '.spec.template.spec.containers[name="web"].args[0]', '.spec.template.spec.containers[name="web"].args[1]', '.metadata.labels.app']);
  });

  it('compares a Secret rendered with stringData with the base64 data the server keeps', () => {
    const rendered: KubeObject = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, stringData: { password: 'hunter2' } };
    expect(renderedDifferences(rendered, { ...rendered, stringData: undefined, data: { password: Buffer.from('hunter2').toString('base64') } })).toEqual([]);
    expect(renderedDifferences(rendered, { ...rendered, stringData: undefined, data: { password: Buffer.from('other').toString('base64') } })).toEqual(['.data.password']);
  });

  it('reads Kubernetes quantities', () => {
    expect(quantity('500m')).toBe(0.5);
    expect(quantity('1Gi')).toBe(quantity('1024Mi'));
    expect(quantity('web')).toBeUndefined();
  });

  it('applyWouldChange leaves server bookkeeping out', () => {
    const live: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', resourceVersion: '5', managedFields: [], generation: 1 }, data: { a: '1' } };
    expect(applyWouldChange({ ...live, metadata: { ...live.metadata, resourceVersion: '6', managedFields: [{ manager: 'baton' }] } }, live)).toEqual([]);
    expect(applyWouldChange({ ...live, data: { a: '2' } }, live)).toEqual(['.data.a']);
  });
});

describe('decideRepairs: fights with other field managers back off', () => {
  const settings = { repairs: 2, windowMs: 60_000, backoffMs: 10_000, maxBackoffMs: 40_000 };
  const scaled: DriftedObject = { ref: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'shop', name: 'web' }, object: 'Deployment shop/web', reason: { kind: 'changed', fields: ['.spec.replicas'], managers: ['hpa'] }, action: 'repair' };
  const t0 = Date.parse('2026-01-01T00:00:00Z');

  it('repairs up to the limit within the window, then holds back for a backoff that doubles after one more try', () => {
    let fights = decideRepairs([scaled], [], t0, settings).fights;
    const second = decideRepairs([scaled], fights, t0 + 1_000, settings);
    expect(second.repair).toHaveLength(1);
    const third = decideRepairs([scaled], second.fights, t0 + 2_000, settings);
    expect(third.repair).toHaveLength(0);
    expect(third.heldBack[0]?.fight).toMatchObject({ repairs: 3, managers: ['hpa'], fields: ['.spec.replicas'], backoffUntil: '2026-01-01T00:00:12.000Z' });
    // Still within the backoff: held back again.
    expect(decideRepairs([scaled], third.fights, t0 + 5_000, settings).repair).toHaveLength(0);
    // The backoff is over: one more repair.
    const retry = decideRepairs([scaled], third.fights, t0 + 13_000, settings);
    expect(retry.repair).toHaveLength(1);
    // It drifts again at once: held back for twice as long.
    const again = decideRepairs([scaled], retry.fights, t0 + 14_000, settings);
    expect(again.heldBack[0]?.fight.backoffUntil).toBe('2026-01-01T00:00:34.000Z');
    fights = again.fights;
    // Quiet for longer than the window after its backoff: forgotten.
    expect(decideRepairs([], fights, t0 + 34_000 + 61_000, settings).fights).toEqual([]);
  });

  it('does not count repairs further apart than the window as a fight', () => {
    let fights = decideRepairs([scaled], [], t0, settings).fights;
    for (let i = 1; i <= 5; i++) {
      const d = decideRepairs([scaled], fights, t0 + i * 61_000, settings);
      expect(d.repair).toHaveLength(1);
      fights = d.fights;
    }
  });

  it('never repairs objects whose policy is report', () => {
    expect(decideRepairs([{ ...scaled, action: 'report' }], [], t0, settings)).toEqual({ repair: [], heldBack: [], fights: [] });
  });
});

describe('Kubernetes Events for drift checks', () => {
  it('says DriftDetected for new drift, DriftResolved when it is gone, HealthChanged with the first unhealthy object', async () => {
    const { liveEvents } = await import('../../src/sync/drift-report.js');
    const drifted = { status: 'Drifted' as const, policy: 'repair' as const, checkedAt: 't', objects: [{ object: 'Service shop/web', reason: 'missing', action: 'repair' as const }], fights: [], errors: [] };
    const missing = { status: 'Missing' as const, checkedAt: 't', objects: [{ object: 'Service shop/web', status: 'Missing' as const, message: 'not in the cluster' }] };
    expect(liveEvents(undefined, { drift: drifted, health: missing })).toEqual([
      { type: 'Warning', reason: 'DriftDetected', message: 'drift: Service shop/web missing' },
      { type: 'Warning', reason: 'HealthChanged', message: 'health unknown -> Missing: Service shop/web: not in the cluster' },
    ]);
    const previous = { drift: drifted, health: missing } as unknown as Parameters<typeof liveEvents>[0];
    expect(liveEvents(previous, { drift: { ...drifted, status: 'InSync', objects: [] }, health: { status: 'Healthy', checkedAt: 't', objects: [] } })).toEqual([
      { type: 'Normal', reason: 'DriftResolved', message: 'the objects match the applied desired state again' },
      { type: 'Normal', reason: 'HealthChanged', message: 'health Missing -> Healthy' },
    ]);
    // The same drift again: no new event.
    expect(liveEvents(previous, { drift: drifted, health: missing })).toEqual([]);
  });
});

describe('instanceSelectors: the lists of a sweep name the instances swept (issue #20)', () => {
  it('narrows the selector by the instance label, INSTANCES_PER_LIST names a list, in a stable order', () => {
    expect(instanceSelectors('a=b', undefined)).toEqual(['a=b']);
    expect(instanceSelectors('a=b', new Set(['web-2', 'web-1']))).toEqual(['a=b,app.kubernetes.io/instance in (web-1,web-2)']);
    const names = Array.from({ length: INSTANCES_PER_LIST * 2 + 1 }, (_, i) => `app-${String(i).padStart(3, '0')}`);
    const selectors = instanceSelectors('a=b', new Set(names));
    expect(selectors).toHaveLength(3);
    expect(selectors[2]).toBe(`a=b,app.kubernetes.io/instance in (${names.at(-1)})`);
  });
});
