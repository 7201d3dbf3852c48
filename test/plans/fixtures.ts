/** Hand-written rendered plans and hooks for engine unit tests (the renderer is tested on its own). */
import type { KubeObject } from '../../src/kube/object.js';
import { isRecord } from '../../src/kube/object.js';
import type { BatchAction, RenderedPlan, RenderedStep, Strategy } from '../../src/render/types.js';
import { classify, retryDecision } from '../../src/plans/failure.js';
import type { EngineHooks } from '../../src/plans/hooks.js';
import type { DesiredState } from '../../src/plans/selection.js';
import type { FakeKube } from './fake-client.js';

export const NS = 'shop';
export const INSTANCE = { name: 'cache', namespace: NS };

export function cm(name: string, extra: Partial<KubeObject> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: NS, labels: { 'app.kubernetes.io/instance': INSTANCE.name } }, data: { k: 'v' }, ...extra };
}

export function obj(apiVersion: string, kind: string, name: string, namespaced = true): KubeObject {
  return { apiVersion, kind, metadata: { name, ...(namespaced ? { namespace: NS } : {}), labels: { 'app.kubernetes.io/instance': INSTANCE.name } } };
}

export const apply = (object: KubeObject, force = false): BatchAction => ({ action: 'apply', object, task: 't', template: 't.yaml.ejs', force });
export const remove = (object: KubeObject): BatchAction => ({ action: 'delete', object, task: 't', template: 't.yaml.ejs' });

export function step(name: string, actions: BatchAction[], timeoutSeconds = 600): RenderedStep {
  return { name, timeoutSeconds, actions };
}

export function plan(name: string, phases: { name: string; strategy?: Strategy; steps: RenderedStep[] }[], strategy: Strategy = 'serial'): RenderedPlan {
  return {
    instance: INSTANCE,
    framework: { name: 'redis', version: '1.0.0', appVersion: '7' },
    plan: name,
    strategy,
    phases: phases.map((p) => ({ name: p.name, strategy: p.strategy ?? 'serial', steps: p.steps })),
    readiness: [],
    sensitiveParams: [],
  };
}

/**
 * Test gate: an object is ready when `status.ready` is true, failed when `status.failed` is a
 * string; CRDs need the Established condition as in the real gate.
 */
export const testHooks: EngineHooks = {
  gate: (o) => {
    const status = isRecord(o['status']) ? o['status'] : {};
    if (typeof status['failed'] === 'string') return { state: 'failed', reason: 'TestFailed', message: status['failed'] };
    return status['ready'] === true ? { state: 'done', message: 'ready' } : { state: 'waiting', message: 'not ready yet' };
  },
  explain: (_o, verdict) => verdict,
  classify,
  // Short fixed backoff keeps retry tests fast; the real policy is tested with failure.ts.
  retryDelayMs: (f, attempt) => (retryDecision(f.class, attempt).retry ? 20 : undefined),
};

/** A controller that marks every written object ready a moment later (as the simulated one does). */
export function autoReady(kube: FakeKube, delayMs = 5, except: (o: KubeObject) => boolean = () => false): void {
  kube.onWrite = (o, k) => {
    if (except(o)) return;
    setTimeout(() => k.setStatus({ apiVersion: o.apiVersion, kind: o.kind, name: o.metadata.name ?? '', ...(o.metadata.namespace ? { namespace: o.metadata.namespace } : {}) }, { ready: true }), delayMs);
  };
}

export function desired(over: Partial<DesiredState> = {}): DesiredState {
  return {
    frameworkVersion: '1.0.0',
    frameworkHash: 'h1',
    values: { REPLICAS: 3 },
    params: [{ name: 'REPLICAS' }],
    plans: ['deploy', 'update', 'cleanup', 'backup'],
    ...over,
  };
}
