import type { BatchAction } from '../../src/render/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryCheckpointStore, type Checkpoint } from '../../src/plans/checkpoint.js';
import type { EngineEvent } from '../../src/plans/events.js';
import { reconcile, type ReconcileOptions, type ReconcileResult } from '../../src/plans/reconcile.js';
import type { DesiredState } from '../../src/plans/selection.js';
import type { RenderedPlan } from '../../src/render/types.js';
import { apiError, FakeKube } from './fake-client.js';
import { apply, autoReady, cm, desired, INSTANCE, obj, plan, remove, step, testHooks } from './fixtures.js';

interface Harness {
  kube: FakeKube;
  store: MemoryCheckpointStore;
  events: EngineEvent[];
  run(plans: Record<string, RenderedPlan>, over?: Partial<ReconcileOptions>): Promise<ReconcileResult>;
}

function harness(): Harness {
  const kube = new FakeKube();
  const store = new MemoryCheckpointStore();
  const events: EngineEvent[] = [];
  return {
    kube,
    store,
    events,
    run: (plans, over = {}) =>
      reconcile({
        client: kube,
        store,
        hooks: testHooks,
        instance: INSTANCE,
        framework: 'redis',
        desired: desired({ plans: Object.keys(plans) }),
        render: async (name) => {
          const p = plans[name];
          if (!p) throw new Error(`no plan ${name}`);
          return p;
        },
        onEvent: (e) => events.push(e),
        ...over,
      }),
  };
}

const types = (events: EngineEvent[]): string[] => events.filter((e) => e.type !== 'checkpoint' && e.type !== 'step-waiting').map((e) => ('step' in e ? `${e.type}:${e.step}` : 'phase' in e ? `${e.type}:${e.phase}` : e.type));
const outcome = (r: ReconcileResult): string => (r.kind === 'ran' ? r.execution.outcome : r.kind);

const twoSteps = plan('deploy', [{ name: 'main', steps: [step('config', [apply(cm('a'))]), step('servers', [apply(obj('apps/v1', 'Deployment', 'web'))])] }]);

/** The checkpoint of `store`'s last completed write, as it is after each write. */
function lastWritten(store: MemoryCheckpointStore): () => Checkpoint | undefined {
  let written: Checkpoint | undefined;
  const save = store.save.bind(store);
  store.save = async (cp, version) => {
    const saved = await save(cp, version);
    written = cp;
    return saved;
  };
  return () => written;
}

const stepStatus = (cp: Checkpoint | undefined, step: string): string | undefined => cp?.active?.phases[0]?.steps.find((s) => s.name === step)?.state.status;

let h: Harness;
afterEach(() => {
  h.kube.onWrite = () => undefined;
});

describe('the plan engine against an in-memory API', () => {
  it('GIVEN a new instance WHEN reconciled THEN deploy runs its steps in order and records COMPLETE', async () => {
    h = harness();
    autoReady(h.kube);
    const result = await h.run({ deploy: twoSteps });
    expect(outcome(result)).toBe('complete');
    expect(types(h.events)).toEqual(['plan-started', 'phase-started:main', 'step-started:config', 'step-complete:config', 'step-started:servers', 'step-complete:servers', 'phase-complete:main', 'plan-complete']);
    const cp = (await h.store.load(INSTANCE))?.checkpoint;
    expect(cp?.active?.state.status).toBe('COMPLETE');
    expect(cp?.active?.phases[0]?.steps.map((s) => s.state.status)).toEqual(['COMPLETE', 'COMPLETE']);
    expect(cp?.inventory.map((e) => `${e.kind}/${e.name}`).sort()).toEqual(['ConfigMap/a', 'Deployment/web']);
    expect(cp?.applied?.frameworkVersion).toBe('1.0.0');
  });

  it('GIVEN a new instance of two serial steps WHEN deployed THEN the checkpoint is written once per transition and once per step start, the order of states kept', async () => {
    h = harness();
    autoReady(h.kube);
    const saved: string[] = [];
    const save = h.store.save.bind(h.store);
    h.store.save = (cp, version) => {
      const run = cp.active;
      saved.push([run?.state.status, ...(run?.phases.flatMap((p) => [p.state.status, ...p.steps.map((s) => s.state.status)]) ?? []), `inventory ${cp.inventory.map((e) => e.name).join(',')}`].join(' '));
      return save(cp, version);
    };
    expect(outcome(await h.run({ deploy: twoSteps }))).toBe('complete');
    // Before: 9 writes (the new run PENDING and then started, the phase started on its own, each step's end on its own),
    // then 5 (the plan's start and the last phase's end on their own; issue #20).
    // A plan's and a phase's start and a step's end ride with the next write, the last phase's end with the
    // plan's end: nothing reaches the cluster in between.
    expect(saved).toEqual([
      // Every step's objects are in the inventory before the step applies them.
      'IN_PROGRESS IN_PROGRESS IN_PROGRESS PENDING inventory a',
      'IN_PROGRESS IN_PROGRESS COMPLETE IN_PROGRESS inventory a,web',
      'COMPLETE COMPLETE COMPLETE COMPLETE inventory a,web',
    ]);
    // Every event still comes, in order, after the write that records what it says.
    expect(types(h.events)).toEqual(['plan-started', 'phase-started:main', 'step-started:config', 'step-complete:config', 'step-started:servers', 'step-complete:servers', 'phase-complete:main', 'plan-complete']);
  });

  it('GIVEN serial steps WHEN each step-complete event comes THEN the checkpoint already written shows the step COMPLETE (a step reported complete is never started again after a crash)', async () => {
    h = harness();
    autoReady(h.kube);
    const written = lastWritten(h.store);
    const seen: string[] = [];
    const onEvent = (e: EngineEvent): void => {
      if (e.type === 'step-complete') seen.push(`${e.step} ${stepStatus(written(), e.step)}`);
    };
    expect(outcome(await h.run({ deploy: twoSteps }, { onEvent }))).toBe('complete');
    // Before: 'config IN_PROGRESS' (the event came before the next step's start carried the end to the store).
    expect(seen).toEqual(['config COMPLETE', 'servers COMPLETE']);
  });

  it('GIVEN a parallel phase WHEN one step completes while another still waits THEN its step-complete event comes at once, after its own write', async () => {
    h = harness();
    const slow = obj('apps/v1', 'Deployment', 'slow');
    autoReady(h.kube, 5, (o) => o.metadata.name === 'slow');
    const written = lastWritten(h.store);
    const seen: string[] = [];
    const onEvent = (e: EngineEvent): void => {
      if (e.type !== 'step-complete') return;
      seen.push(`${e.step} ${stepStatus(written(), e.step)}`);
      // The slow step becomes ready only once the fast one is reported: held back, it would time out.
      if (e.step === 'fast') h.kube.setStatus({ apiVersion: 'apps/v1', kind: 'Deployment', name: 'slow', namespace: INSTANCE.namespace }, { ready: true });
    };
    const parallel = plan('deploy', [{ name: 'main', strategy: 'parallel', steps: [step('fast', [apply(cm('a'))]), step('slow', [apply(slow)], 5)] }]);
    expect(outcome(await h.run({ deploy: parallel }, { onEvent }))).toBe('complete');
    expect(seen).toEqual(['fast COMPLETE', 'slow COMPLETE']);
  });

  it('creates the instance namespace when it does not exist', async () => {
    h = harness();
    autoReady(h.kube);
    await h.run({ deploy: twoSteps });
    expect(await h.kube.get({ apiVersion: 'v1', kind: 'Namespace', name: INSTANCE.namespace })).toBeDefined();
  });

  it('GIVEN the desired state is already applied WHEN reconciled again THEN nothing runs', async () => {
    h = harness();
    autoReady(h.kube);
    await h.run({ deploy: twoSteps });
    const applies = h.kube.count('apply');
    expect(outcome(await h.run({ deploy: twoSteps }))).toBe('nothing');
    expect(h.kube.count('apply')).toBe(applies);
  });

  it('waits at the readiness gate: the next step starts only after the batch is ready', async () => {
    h = harness();
    autoReady(h.kube, 150);
    const started = Date.now();
    await h.run({ deploy: twoSteps });
    const order = h.kube.calls.filter((c) => c.verb === 'apply').map((c) => c.key);
    expect(order).toEqual(['v1/ConfigMap/shop/a', 'apps/v1/Deployment/shop/web']);
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(h.events.some((e) => e.type === 'step-waiting' && e.object === 'ConfigMap shop/a' && e.message.includes('not ready'))).toBe(true);
  });

  it('applies Namespaces and CRDs first and waits for the CRD before its custom resources', async () => {
    h = harness();
    autoReady(h.kube, 50);
    const crd = obj('apiextensions.k8s.io/v1', 'CustomResourceDefinition', 'widgets.example.com', false);
    const widget = obj('example.com/v1', 'Widget', 'w1');
    const ns = obj('v1', 'Namespace', 'extra', false);
    let crdReadyWhenWidgetApplied: boolean | undefined;
    const original = h.kube.apply.bind(h.kube);
    h.kube.apply = async (o, opts) => {
      if (o.kind === 'Widget') crdReadyWhenWidgetApplied = (await h.kube.get({ apiVersion: crd.apiVersion, kind: crd.kind, name: crd.metadata.name! }))?.['status'] !== undefined;
      return original(o, opts);
    };
    await h.run({ deploy: plan('deploy', [{ name: 'p', steps: [step('s', [apply(widget), apply(cm('c')), apply(crd), apply(ns)])] }]) });
    const kinds = h.kube.calls.filter((c) => c.verb === 'apply').map((c) => c.key.split('/').at(-2) === 'shop' ? c.key.split('/').at(-3) : c.key.split('/').at(-2));
    expect(kinds.slice(0, 2).sort()).toEqual(['CustomResourceDefinition', 'Namespace']);
    expect(crdReadyWhenWidgetApplied).toBe(true);
  });

  it('runs the steps of a parallel phase concurrently', async () => {
    h = harness();
    autoReady(h.kube, 100);
    const p = plan('deploy', [{ name: 'p', strategy: 'parallel', steps: [step('one', [apply(cm('one'))]), step('two', [apply(cm('two'))]), step('three', [apply(cm('three'))])] }]);
    await h.run({ deploy: p });
    // All three started before any finished: they were in flight together.
    const seq = types(h.events).filter((t) => t.startsWith('step-')).map((t) => t.split(':')[0]);
    expect(seq).toEqual(['step-started', 'step-started', 'step-started', 'step-complete', 'step-complete', 'step-complete']);
  });

  it('runs the phases of a parallel plan concurrently', async () => {
    h = harness();
    autoReady(h.kube, 100);
    const p = plan('deploy', [{ name: 'a', steps: [step('one', [apply(cm('one'))])] }, { name: 'b', steps: [step('two', [apply(cm('two'))])] }], 'parallel');
    await h.run({ deploy: p });
    expect(types(h.events).slice(1, 3)).toEqual(['phase-started:a', 'phase-started:b']);
  });

  it('GIVEN a gate that fails (a failed Job) THEN the step and plan end FATAL_ERROR and nothing after it runs', async () => {
    h = harness();
    h.kube.onWrite = (o, k) => {
      setTimeout(() => k.setStatus({ apiVersion: o.apiVersion, kind: o.kind, name: o.metadata.name!, namespace: 'shop' }, o.kind === 'Job' ? { failed: 'BackoffLimitExceeded: Job has reached the specified backoff limit' } : { ready: true }), 5);
    };
    const p = plan('deploy', [{ name: 'main', steps: [step('migrate', [apply(obj('batch/v1', 'Job', 'migrate'))]), step('after', [apply(cm('after'))])] }]);
    const result = await h.run({ deploy: p });
    expect(result.kind === 'ran' && result.execution.outcome === 'failed' && result.execution.error).toMatchObject({ code: 'GATE_FAILED', object: 'Job shop/migrate' });
    expect(h.kube.count('apply', 'after')).toBe(0);
    const cp = (await h.store.load(INSTANCE))?.checkpoint;
    expect(cp?.active?.state.status).toBe('FATAL_ERROR');
    expect(cp?.active?.phases[0]?.steps.map((s) => s.state.status)).toEqual(['FATAL_ERROR', 'PENDING']);
    // AND the plan stays stopped until the desired state changes
    expect(outcome(await h.run({ deploy: p }))).toBe('nothing');
  });

  it.each([
    ['a 429 with Retry-After', () => apiError(429, 'TooManyRequests', 'slow down')],
    ['a 500', () => apiError(500, 'InternalError', 'boom')],
    ['a connection reset', () => Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' })],
  ])('retries %s on apply until it succeeds (step ERROR, then COMPLETE)', async (_name, makeError) => {
    h = harness();
    autoReady(h.kube);
    let failures = 2;
    h.kube.fault = (verb) => (verb === 'apply' && failures-- > 0 ? makeError() : undefined);
    const result = await h.run({ deploy: twoSteps });
    expect(outcome(result)).toBe('complete');
    expect(h.events.filter((e) => e.type === 'step-error').map((e) => e.type === 'step-error' && e.attempt)).toEqual([1, 2]);
  });

  it('GIVEN a field another manager owns WHEN the plan applies THEN Git wins by default: the apply takes the field (force)', async () => {
    h = harness();
    autoReady(h.kube);
    h.kube.foreignManagers.set('apps/v1/Deployment/shop/web', 'kubectl-edit');
    expect(outcome(await h.run({ deploy: twoSteps }))).toBe('complete');
  });

  it('GIVEN a task with force: false WHEN another manager owns a field THEN the step fails FIELD_CONFLICT naming the manager (the strict behaviour, now opt-in)', async () => {
    h = harness();
    autoReady(h.kube);
    h.kube.foreignManagers.set('apps/v1/Deployment/shop/web', 'kubectl-edit');
    const strict: BatchAction = { ...apply(obj('apps/v1', 'Deployment', 'web')), noForce: true } as BatchAction;
    const result = await h.run({ deploy: plan('deploy', [{ name: 'main', steps: [step('servers', [strict])] }]) });
    expect(result.kind === 'ran' && result.execution.outcome === 'failed' && result.execution.error).toMatchObject({ code: 'FIELD_CONFLICT' });
    expect(result.kind === 'ran' && result.execution.outcome === 'failed' && result.execution.error.message).toMatch(/\.spec\.replicas owned by "kubectl-edit".*force: false/);
  });

  it('takes ownership when the task says force: true (kept: now the default)', async () => {
    h = harness();
    autoReady(h.kube);
    h.kube.foreignManagers.set('apps/v1/Deployment/shop/web', 'kubectl-edit');
    const p = plan('deploy', [{ name: 'main', steps: [step('servers', [apply(obj('apps/v1', 'Deployment', 'web'), true)])] }]);
    expect(outcome(await h.run({ deploy: p }))).toBe('complete');
  });

  it('ends a step that never becomes ready at its timeout with FATAL_ERROR naming the object it waited on', async () => {
    h = harness();
    const p = plan('deploy', [{ name: 'main', steps: [step('stuck', [apply(cm('never'))], 1)] }]);
    const result = await h.run({ deploy: p });
    expect(result.kind === 'ran' && result.execution.outcome === 'failed' && result.execution.error).toMatchObject({ code: 'STEP_TIMEOUT' });
    expect(result.kind === 'ran' && result.execution.outcome === 'failed' && result.execution.error.message).toContain('ConfigMap shop/never: not ready yet');
  });

  it('GIVEN a plan whose first step completed WHEN a second process takes over THEN it resumes without re-applying that step and the first can no longer write', async () => {
    h = harness();
    // GIVEN a first process that dies while the second step waits
    h.kube.onWrite = (o, k) => {
      if (o.kind === 'ConfigMap') setTimeout(() => k.setStatus({ apiVersion: 'v1', kind: 'ConfigMap', name: o.metadata.name!, namespace: 'shop' }, { ready: true }), 5);
    };
    const supersede = new AbortController();
    const first = h.run({ deploy: twoSteps }, { signal: supersede.signal });
    await until(() => h.events.some((e) => e.type === 'step-waiting' && e.step === 'servers'));
    const saved = await h.store.load(INSTANCE);
    expect(saved?.checkpoint.active?.phases[0]?.steps.map((s) => s.state.status)).toEqual(['COMPLETE', 'IN_PROGRESS']);
    // WHEN a second process starts with the same desired state
    const applied = h.kube.count('apply', 'a');
    autoReady(h.kube);
    h.kube.setStatus({ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'shop' }, { ready: true });
    const second = await h.run({ deploy: twoSteps });
    // THEN it resumes the running plan and never re-applies the completed step
    expect(second.kind === 'ran' && second.resumed).toBe(true);
    expect(outcome(second)).toBe('complete');
    expect(h.kube.count('apply', 'a')).toBe(applied);
    // AND the first process, still alive, cannot advance the checkpoint any more
    await expect(first).rejects.toMatchObject({ code: 'CHECKPOINT_CONFLICT' });
  });

  it('GIVEN a step whose applies are done WHEN superseded THEN nothing after it starts', async () => {
    h = harness();
    autoReady(h.kube, 50);
    const supersede = new AbortController();
    const running = h.run({ deploy: twoSteps }, { signal: supersede.signal });
    await until(() => h.kube.count('apply', 'a') === 1);
    supersede.abort();
    const result = await running;
    expect(outcome(result)).toBe('superseded');
    expect(h.kube.count('apply', 'web')).toBe(0);
    expect(types(h.events)).not.toContain('step-started:servers');
  });

  describe('a supersede (newer desired state, lost leader lease) during a running step', () => {
    const stepStatuses = async (): Promise<string[] | undefined> => (await h.store.load(INSTANCE))?.checkpoint.active?.phases[0]?.steps.map((s) => s.state.status);

    it('GIVEN a step waiting at its gate WHEN superseded THEN the wait ends at once and the step stays IN_PROGRESS, not FATAL_ERROR', async () => {
      h = harness();
      // GIVEN the Deployment never becomes ready and its step may wait 10 minutes
      autoReady(h.kube, 5, (o) => o.kind === 'Deployment');
      const supersede = new AbortController();
      const running = h.run({ deploy: twoSteps }, { signal: supersede.signal });
      await until(() => h.events.some((e) => e.type === 'step-waiting' && e.step === 'servers'));
      // WHEN the plan is superseded
      const abortedAt = Date.now();
      supersede.abort();
      const result = await running;
      // THEN it ends promptly as superseded, not failed
      expect(Date.now() - abortedAt).toBeLessThan(1000);
      expect(outcome(result)).toBe('superseded');
      expect(await stepStatuses()).toEqual(['COMPLETE', 'IN_PROGRESS']);
      expect((await h.store.load(INSTANCE))?.checkpoint.active?.state.status).toBe('IN_PROGRESS');
      expect(types(h.events).filter((t) => t.startsWith('step-failed') || t === 'plan-failed')).toEqual([]);
      // AND a later run with the same desired state resumes the step
      autoReady(h.kube);
      h.kube.setStatus({ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'shop' }, { ready: true });
      const resumed = await h.run({ deploy: twoSteps });
      expect(resumed.kind === 'ran' && resumed.resumed).toBe(true);
      expect(outcome(resumed)).toBe('complete');
    });

    it('GIVEN a step sleeping in retry backoff WHEN superseded THEN the backoff ends at once and the step stays ERROR', async () => {
      h = harness();
      autoReady(h.kube);
      // GIVEN every apply of the Deployment fails transiently and the next attempt is a minute away
      h.kube.fault = (verb, ref) => (verb === 'apply' && ref?.kind === 'Deployment' ? apiError(500, 'InternalError', 'etcd leader changed') : undefined);
      const hooks = { ...testHooks, retryDelayMs: () => 60_000 };
      const supersede = new AbortController();
      const running = h.run({ deploy: twoSteps }, { signal: supersede.signal, hooks });
      await until(() => h.events.some((e) => e.type === 'step-error' && e.step === 'servers'));
      // WHEN the plan is superseded during the backoff
      const abortedAt = Date.now();
      supersede.abort();
      const result = await running;
      // THEN it ends promptly as superseded, with no further attempt and no FATAL_ERROR
      expect(Date.now() - abortedAt).toBeLessThan(1000);
      expect(outcome(result)).toBe('superseded');
      expect(h.kube.count('apply', 'web')).toBe(1);
      expect(await stepStatuses()).toEqual(['COMPLETE', 'ERROR']);
      expect(types(h.events)).not.toContain('step-failed:servers');
    });

    it('GIVEN applies in flight WHEN superseded THEN every apply of the batch completes, then the step ends superseded', async () => {
      h = harness();
      autoReady(h.kube, 5);
      // GIVEN the server holds the batch's first apply (a Namespace, applied before the rest)
      let release: () => void = () => undefined;
      const held = new Promise<void>((r) => (release = r));
      let inFlight = false;
      const original = h.kube.apply.bind(h.kube);
      h.kube.apply = async (o, opts) => {
        if (o.kind === 'Namespace' && o.metadata.name === 'extra') {
          inFlight = true;
          await held;
        }
        return original(o, opts);
      };
      const batch = plan('deploy', [{ name: 'main', steps: [step('all', [apply(obj('v1', 'Namespace', 'extra', false)), apply(cm('x')), apply(obj('apps/v1', 'Deployment', 'web'))])] }]);
      const supersede = new AbortController();
      const running = h.run({ deploy: batch }, { signal: supersede.signal });
      await until(() => inFlight);
      // WHEN the plan is superseded while that apply is in flight, and the server then answers
      supersede.abort();
      release();
      const result = await running;
      // THEN the held apply and the rest of the batch reached the server
      expect(['extra', 'x', 'web'].map((n) => h.kube.count('apply', n))).toEqual([1, 1, 1]);
      expect(h.kube.objects.has('apps/v1/Deployment/shop/web')).toBe(true);
      // AND the step ends superseded instead of waiting at the gate
      expect(outcome(result)).toBe('superseded');
      expect(await stepStatuses()).toEqual(['IN_PROGRESS']);
      expect(types(h.events)).not.toContain('step-complete:all');
    });
  });

  it('deletes objects of a Delete task and waits until they are gone before applying the rest', async () => {
    h = harness();
    autoReady(h.kube);
    await h.run({ deploy: plan('deploy', [{ name: 'p', steps: [step('s', [apply(obj('batch/v1', 'Job', 'backup'))])] }]) });
    const job = obj('batch/v1', 'Job', 'backup');
    const backup = plan('backup', [{ name: 'p', steps: [step('run', [remove(job), apply(job)])] }]);
    const result = await h.run({ deploy: backup, backup }, { desired: desired({ plans: ['deploy', 'backup'], request: { id: 'r1', plan: 'backup', args: {} } }) });
    expect(outcome(result)).toBe('complete');
    const verbs = h.kube.calls.filter((c) => c.key.endsWith('Job/shop/backup') && (c.verb === 'delete' || c.verb === 'apply')).map((c) => c.verb);
    expect(verbs).toEqual(['apply', 'delete', 'apply']);
  });
});

describe('an explicit plan request (baton apply --plan) does not count as applying the desired state', () => {
  const backup = plan('backup', [{ name: 'p', steps: [step('run', [apply(cm('backup-job'))])] }]);
  const scale = plan('scale', [{ name: 'p', steps: [step('resize', [apply(cm('a'))])] }]);
  const upgrade = plan('upgrade', [{ name: 'p', steps: [step('all', [apply(cm('a'))])] }]);
  const plans = { deploy: twoSteps, backup, scale, upgrade };
  const params = [{ name: 'REPLICAS', trigger: 'scale' }];
  const state = (over: Partial<DesiredState> = {}): DesiredState => desired({ plans: Object.keys(plans), params, ...over });
  const explicitBackup = (id: string) => ({ id, plan: 'backup', args: {}, explicit: true });
  const checkpoint = async () => (await h.store.load(INSTANCE))?.checkpoint;

  it('GIVEN a new instance WHEN backup is requested explicitly first THEN the next plain reconcile runs deploy, then nothing', async () => {
    h = harness();
    autoReady(h.kube);
    // WHEN
    expect(outcome(await h.run(plans, { desired: state({ request: explicitBackup('cli-1') }) }))).toBe('complete');
    expect((await checkpoint())?.active?.plan).toBe('backup');
    expect((await checkpoint())?.applied).toBeUndefined();
    expect((await checkpoint())?.handledRequests).toEqual(['cli-1']);
    // THEN
    expect(outcome(await h.run(plans, { desired: state() }))).toBe('complete');
    const cp = await checkpoint();
    expect(cp?.active?.plan).toBe('deploy');
    expect(h.kube.count('apply', 'web')).toBe(1);
    expect(cp?.applied?.frameworkVersion).toBe('1.0.0');
    expect(cp?.handledRequests).toEqual(['cli-1']);
    expect(outcome(await h.run(plans, { desired: state() }))).toBe('nothing');
  });

  it('GIVEN a changed value WHEN another plan is requested explicitly THEN the next plain reconcile runs the value\'s trigger plan', async () => {
    h = harness();
    autoReady(h.kube);
    await h.run(plans, { desired: state() });
    // WHEN REPLICAS changes and backup is asked for in the same apply
    await h.run(plans, { desired: state({ values: { REPLICAS: 5 }, request: explicitBackup('cli-2') }) });
    expect((await checkpoint())?.active?.plan).toBe('backup');
    expect((await checkpoint())?.applied?.values['REPLICAS']).toBe('3');
    // THEN
    expect(outcome(await h.run(plans, { desired: state({ values: { REPLICAS: 5 } }) }))).toBe('complete');
    expect((await checkpoint())?.active?.plan).toBe('scale');
    expect((await checkpoint())?.applied?.values['REPLICAS']).toBe('5');
    expect(outcome(await h.run(plans, { desired: state({ values: { REPLICAS: 5 } }) }))).toBe('nothing');
  });

  it('GIVEN a newer framework version WHEN another plan is requested explicitly THEN the next plain reconcile still upgrades', async () => {
    h = harness();
    autoReady(h.kube);
    await h.run(plans, { desired: state() });
    await h.run(plans, { desired: state({ frameworkVersion: '1.1.0', request: explicitBackup('cli-3') }) });
    expect((await checkpoint())?.applied?.frameworkVersion).toBe('1.0.0');
    expect(outcome(await h.run(plans, { desired: state({ frameworkVersion: '1.1.0' }) }))).toBe('complete');
    expect((await checkpoint())?.active?.plan).toBe('upgrade');
    expect((await checkpoint())?.applied?.frameworkVersion).toBe('1.1.0');
  });

  it('GIVEN a new instance WHEN deploy itself is requested explicitly THEN it counts as the deploy', async () => {
    h = harness();
    autoReady(h.kube);
    await h.run(plans, { desired: state({ request: { id: 'cli-4', plan: 'deploy', args: {}, explicit: true } }) });
    expect((await checkpoint())?.applied?.values['REPLICAS']).toBe('3');
    expect(outcome(await h.run(plans, { desired: state() }))).toBe('nothing');
  });
});

async function until(cond: () => boolean, timeoutMs = 5000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 5));
  }
}

/**
 * A clock that stands still (the test moves `now`) and shortens short waits (retry backoffs, readiness
 * ticks) to 20 ms. Timeouts (a step's deadline, 600 s; the prune wait, 60 s) stay real: shortened too,
 * a step that took more than 20 ms of real time timed out, which a loaded machine did once ("backup
 * after failed update" failed).
 */
function frozenClock(now: () => number): NonNullable<ReconcileOptions['clock']> {
  return {
    now,
    sleep: (ms, signal) => new Promise<void>((resolve, reject) => {
      const t = setTimeout(resolve, ms >= 60_000 ? ms : Math.min(ms, 20));
      signal?.addEventListener('abort', () => { clearTimeout(t); reject(signal.reason as Error); });
    }),
  };
}

describe('a failed desired state: never recorded as applied, retried with backoff', () => {
  const withReplicas = (n: number, over: Partial<DesiredState> = {}): DesiredState => desired({ values: { REPLICAS: n }, ...over });
  const update = plan('update', [{ name: 'main', steps: [step('servers', [apply(obj('apps/v1', 'Deployment', 'web'))])] }]);
  const backup = plan('backup', [{ name: 'main', steps: [step('snapshot', [apply(cm('backup'))])] }]);
  const plans = { deploy: twoSteps, update, backup };

  it('GIVEN an update that ended FATAL_ERROR WHEN a backup completes after it THEN the checkpoint still says the old values are applied and the failed update waits for its retry', async () => {
    h = harness();
    autoReady(h.kube);
    let now = Date.parse('2026-03-01T00:00:00Z');
    const clock = frozenClock(() => now);
    expect(outcome(await h.run(plans, { desired: withReplicas(3), clock }))).toBe('complete');

    h.kube.fault = (verb) => (verb === 'apply' ? apiError(422, 'Invalid', 'spec.replicas: Invalid value') : undefined);
    expect(outcome(await h.run(plans, { desired: withReplicas(2), clock }))).toBe('failed');
    h.kube.fault = () => undefined;
    let cp = (await h.store.load(INSTANCE))?.checkpoint;
    expect(cp?.applied?.values).toEqual({ REPLICAS: '3' });
    expect(cp?.target).toMatchObject({ plan: 'update', values: { REPLICAS: '2' }, failure: { attempts: 1, code: 'KUBE_INVALID', phase: 'main', step: 'servers', nextRetryAt: '2026-03-01T00:01:00.000Z' } });

    // A backup requested through Git runs against the desired state but records nothing as applied.
    const requested = await h.run(plans, { desired: withReplicas(2, { request: { id: 'r-1', plan: 'backup', args: {} } }), clock });
    expect(requested.kind === 'ran' && requested.execution.run.plan).toBe('backup');
    // Seen once under load 20 (failed, cause not recorded): the message now carries the run's error.
    expect(outcome(requested), JSON.stringify(requested.kind === 'ran' && requested.execution.outcome === 'failed' ? requested.execution.error : undefined)).toBe('complete');
    cp = (await h.store.load(INSTANCE))?.checkpoint;
    expect(cp?.applied?.values).toEqual({ REPLICAS: '3' });
    expect(cp?.target?.failure?.attempts).toBe(1);

    // Before its backoff has passed the failed update waits, and says until when.
    const waiting = await h.run(plans, { desired: withReplicas(2), clock });
    expect(waiting).toEqual({ kind: 'nothing', reason: 'the failed update is retried at 2026-03-01T00:01:00.000Z', retryAt: '2026-03-01T00:01:00.000Z' });

    // Once it has passed, the same plan runs again for the same desired state, and its success records it as applied.
    now += 61_000;
    const retried = await h.run(plans, { desired: withReplicas(2), clock });
    expect(retried.kind === 'ran' && retried.execution.run).toMatchObject({ plan: 'update', reason: 'retry 2 of the failed update', state: { status: 'COMPLETE' } });
    cp = (await h.store.load(INSTANCE))?.checkpoint;
    expect(cp?.applied).toMatchObject({ values: { REPLICAS: '2' }, plan: 'update' });
    expect(cp?.target?.failure).toBeUndefined();
  });

  it('GIVEN a failed update WHEN it fails again THEN the backoff doubles; WHEN asked to retry now (a new commit, baton apply) THEN it runs at once', async () => {
    h = harness();
    autoReady(h.kube);
    const now = Date.parse('2026-03-01T00:00:00Z');
    const clock = frozenClock(() => now);
    await h.run(plans, { desired: withReplicas(3), clock });
    h.kube.fault = (verb) => (verb === 'apply' ? apiError(422, 'Invalid', 'bad') : undefined);
    await h.run(plans, { desired: withReplicas(2), clock, retry: { initialMs: 10_000, maxMs: 15_000 } });
    expect(outcome(await h.run(plans, { desired: withReplicas(2), clock, retry: { initialMs: 10_000, maxMs: 15_000 }, retryNow: true }))).toBe('failed');
    expect((await h.store.load(INSTANCE))?.checkpoint.target?.failure).toMatchObject({ attempts: 2, nextRetryAt: '2026-03-01T00:00:15.000Z' });
    // A new desired state replaces the failed one at once, with a fresh count.
    h.kube.fault = () => undefined;
    expect(outcome(await h.run(plans, { desired: withReplicas(4), clock }))).toBe('complete');
    const cp = (await h.store.load(INSTANCE))?.checkpoint;
    expect(cp?.applied?.values).toEqual({ REPLICAS: '4' });
    expect(cp?.target?.failure).toBeUndefined();
  });
});
