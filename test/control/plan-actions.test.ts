/** The plan actions as pure functions of the checkpoint, conflicts in a batch, canary wait points and the control transitions. */
import { describe, expect, it } from 'vitest';
import { canaryWaits, conflictsOf, HANDLERS, pendingRequests, RequestRefusedError, unrecordedControl, type ControlRequest, type HandledRequest } from '../../src/control/index.js';
import { emptyCheckpoint, type Checkpoint } from '../../src/plans/checkpoint.js';
import type { PlanRun, RunState } from '../../src/plans/state.js';

const T0 = '2026-11-23T10:00:00.000Z';
const NOW = '2026-11-23T11:00:00.000Z';
const instance = { namespace: 'shop', name: 'zk' };
const done = (): RunState => ({ status: 'COMPLETE', startedAt: T0, finishedAt: T0, message: 'ok' });
const running = (): RunState => ({ status: 'IN_PROGRESS', startedAt: T0, message: 'running' });
const pendingState = (): RunState => ({ status: 'PENDING', message: 'waiting' });
const failed = (): RunState => ({ status: 'FATAL_ERROR', startedAt: T0, finishedAt: T0, message: 'boom', error: { code: 'KUBE_INVALID', message: 'boom' } });

function run(state: RunState, steps: RunState[], id = 'run-1'): PlanRun {
  return {
    id, plan: 'deploy', reason: 'new instance', args: {}, frameworkVersion: '1.0.0', strategy: 'serial', state,
    phases: [
      { name: 'main', strategy: 'serial', state: steps.every((s) => s.status === 'COMPLETE') ? done() : running(), steps: steps.map((s, i) => ({ name: `zk-${i}`, state: s })) },
    ],
  };
}

function cpWith(active: PlanRun, extra: Partial<Checkpoint> = {}): Checkpoint {
  return { ...emptyCheckpoint(instance, 'zookeeper'), active, ...extra };
}

async function act(cp: Checkpoint, r: Omit<ControlRequest, 'id' | 'args' | 'via'> & { id?: string }): Promise<HandledRequest> {
  const handler = HANDLERS[r.action];
  if (handler === undefined) throw new Error(`no handler for ${r.action}`);
  return handler.handle({ instance, checkpoint: cp, plans: ['deploy', 'backup'], now: NOW, sourceCommit: 'c2' }, { id: 'r-1', args: {}, via: 'git', requestedBy: 'Ada <ada@example.com>', ...r });
}

async function refusal(cp: Checkpoint, r: Parameters<typeof act>[1]): Promise<RequestRefusedError> {
  try {
    await act(cp, r);
  } catch (err) {
    if (err instanceof RequestRefusedError) return err;
    throw err;
  }
  throw new Error('not refused');
}

describe('plan actions', () => {
  it('GIVEN a running plan WHEN paused and resumed THEN it is PAUSED with who and why, then IN_PROGRESS with its start time', async () => {
    const cp = cpWith(run(running(), [done(), running()]));
    const paused = await act(cp, { action: 'pause', reason: 'alarm' });
    expect(paused.event).toBe('plan-paused');
    expect(paused.checkpoint.active?.state).toMatchObject({ status: 'PAUSED', startedAt: T0, paused: { by: 'Ada <ada@example.com>', reason: 'alarm', requestId: 'r-1', at: NOW } });
    expect((await refusal(paused.checkpoint, { action: 'pause' })).code).toBe('PLAN_ALREADY_PAUSED');
    const resumed = await act(paused.checkpoint, { action: 'resume' });
    expect(resumed.checkpoint.active?.state).toMatchObject({ status: 'IN_PROGRESS', startedAt: T0 });
    expect((await refusal(resumed.checkpoint, { action: 'resume' })).message).toBe('plan deploy of shop/zk is not paused (it is IN_PROGRESS): only a paused plan resumes');
  });

  it('GIVEN no running plan or another plan WHEN paused THEN it is refused naming what runs', async () => {
    expect((await refusal(cpWith(run(done(), [done()])), { action: 'pause' })).message).toBe('no plan of shop/zk is running; the last run, deploy, is COMPLETE');
    expect((await refusal(cpWith(run(running(), [running()])), { action: 'pause', plan: 'backup' })).message).toBe('plan backup of shop/zk is not running (deploy is)');
    expect((await refusal(cpWith(run(running(), [running()])), { action: 'pause', plan: 'nosuch' })).code).toBe('PLAN_UNKNOWN');
  });

  it('GIVEN a running plan WHEN stopped THEN it ends STOPPED with its steps as they were', async () => {
    const r = await act(cpWith(run(running(), [done(), running()])), { action: 'stop' });
    expect(r.checkpoint.active?.state).toMatchObject({ status: 'STOPPED', finishedAt: NOW, stopped: { requestId: 'r-1' } });
    expect(r.checkpoint.active?.phases[0]?.steps.map((s) => s.state.status)).toEqual(['COMPLETE', 'IN_PROGRESS']);
  });

  it('GIVEN a failed change-driven plan WHEN retried THEN a new run carries the completed steps, takes over the target and clears its failure', async () => {
    const old = run(failed(), [done(), failed(), pendingState()]);
    const cp = cpWith(old, { target: { frameworkVersion: '1.0.0', frameworkHash: 'h', values: {}, plan: 'deploy', runId: 'run-1', since: T0, failure: { attempts: 1, at: T0, runId: 'run-1', code: 'X', message: 'boom', nextRetryAt: NOW } } });
    const r = await act(cp, { action: 'retry' });
    const next = r.checkpoint.active;
    expect(next?.id).not.toBe('run-1');
    expect(r.runId).toBe(next?.id);
    expect(next?.state.status).toBe('PENDING');
    expect(next?.sourceCommit).toBe('c2');
    expect(next?.phases[0]?.steps.map((s) => s.state)).toEqual([{ ...done(), carriedFrom: 'run-1' }, pendingState(), pendingState()].map((s) => (s.status === 'PENDING' ? { status: 'PENDING', message: 'waiting to start' } : s)));
    expect(r.checkpoint.history[0]?.id).toBe('run-1');
    expect(r.checkpoint.target).toMatchObject({ runId: next?.id });
    expect(r.checkpoint.target?.failure).toBeUndefined();
    expect((await refusal(cpWith(run(done(), [done()])), { action: 'retry' })).message).toContain('is COMPLETE, not failed or stopped: it completed (baton plan restart runs it again)');
  });

  it('GIVEN a completed plan WHEN one step is restarted THEN only that step (and its phase) run again', async () => {
    const r = await act(cpWith(run(done(), [done(), done(), done()])), { action: 'restart', phase: 'main', step: 'zk-1' });
    expect(r.checkpoint.active?.phases[0]?.steps.map((s) => s.state.status)).toEqual(['COMPLETE', 'PENDING', 'COMPLETE']);
    expect(r.checkpoint.active?.phases[0]?.state.status).toBe('PENDING');
    expect((await refusal(cpWith(run(done(), [done()])), { action: 'restart', phase: 'nope' })).message).toBe('plan deploy of shop/zk has no phase "nope" (phases: main)');
    expect((await refusal(cpWith(run(done(), [done()])), { action: 'restart', phase: 'main', step: 'zk-9' })).message).toBe('phase main of plan deploy has no step "zk-9" (steps: zk-0)');
    expect((await refusal(emptyCheckpoint(instance, 'zookeeper'), { action: 'restart', plan: 'backup' })).code).toBe('PLAN_NEVER_RAN');
  });

  it('GIVEN a step WHEN force-completed THEN it is COMPLETE with the stamp, in place on a running plan and in a new run on a failed one; a completed step is refused', async () => {
    const inPlace = await act(cpWith(run(running(), [done(), running()])), { action: 'force-complete', phase: 'main', step: 'zk-1', reason: 'checked by hand' });
    expect(inPlace.checkpoint.active?.id).toBe('run-1');
    expect(inPlace.checkpoint.active?.phases[0]?.steps[1]?.state).toMatchObject({ status: 'COMPLETE', forced: { reason: 'checked by hand', by: 'Ada <ada@example.com>' } });
    const onFailed = await act(cpWith(run(failed(), [done(), failed(), pendingState()])), { action: 'force-complete', phase: 'main', step: 'zk-1', reason: 'lost node' });
    expect(onFailed.checkpoint.active?.id).not.toBe('run-1');
    expect(onFailed.checkpoint.active?.phases[0]?.steps.map((s) => s.state.status)).toEqual(['COMPLETE', 'COMPLETE', 'PENDING']);
    const e = await refusal(cpWith(run(running(), [done(), running()])), { action: 'force-complete', phase: 'main', step: 'zk-0', reason: 'x' });
    expect(e.code).toBe('STEP_COMPLETE');
    expect(e.message).toBe(`step zk-0 of phase main of plan deploy is already COMPLETE (at ${T0}): nothing to force`);
  });

  it('GIVEN a plan waiting at a canary step WHEN continued THEN the phase counts the continue and the plan is IN_PROGRESS; otherwise refused', async () => {
    const waiting = run({ status: 'WAITING', startedAt: T0, since: T0, message: 'w', waits: [{ phase: 'main', after: 'zk-0', continues: 1 }] }, [done(), pendingState()]);
    const r = await act(cpWith(waiting), { action: 'continue' });
    expect(r.checkpoint.active?.phases[0]?.continued).toBe(1);
    expect(r.checkpoint.active?.state.status).toBe('IN_PROGRESS');
    expect(r.message).toBe('plan deploy continued after step zk-0 of phase main');
    expect((await refusal(r.checkpoint, { action: 'continue' })).code).toBe('PLAN_NOT_WAITING');
  });
});

describe('conflicts, canary points and control transitions', () => {
  const req = (id: string, action: ControlRequest['action'], extra: Partial<ControlRequest> = {}): ControlRequest => ({ id, action, args: {}, via: 'git', ...extra });

  it('GIVEN requests seen together WHEN two act on one plan THEN both conflict; force-completes of different steps do not', () => {
    const cp = cpWith(run(running(), [running()]));
    const [c] = conflictsOf([req('a', 'pause'), req('b', 'resume', { plan: 'deploy' }), req('c', 'pause', { plan: 'backup' })], cp);
    expect([...(c?.ids ?? [])]).toEqual(['a', 'b']);
    expect(conflictsOf([req('a', 'force-complete', { phase: 'p', step: 's1' }), req('b', 'force-complete', { phase: 'p', step: 's2' })], cp)).toEqual([]);
    expect(conflictsOf([req('a', 'force-complete', { phase: 'p', step: 's1' }), req('b', 'force-complete', { phase: 'p', step: 's1' })], cp)).toHaveLength(1);
  });

  it('GIVEN canary strategies WHEN previewed THEN the waits are after the first and second item when another follows', () => {
    const phase = (name: string, strategy: string, steps: number): { name: string; strategy: string; steps: { name: string }[] } => ({ name, strategy, steps: Array.from({ length: steps }, (_, i) => ({ name: `${name}-${i}` })) });
    expect(canaryWaits({ strategy: 'serial', phases: [phase('a', 'serial-canary', 4)] })).toEqual([{ phase: 'a', after: 'a-0', continues: 1 }, { phase: 'a', after: 'a-1', continues: 2 }]);
    expect(canaryWaits({ strategy: 'serial', phases: [phase('a', 'parallel-canary', 2)] })).toEqual([{ phase: 'a', after: 'a-0', continues: 1 }]);
    expect(canaryWaits({ strategy: 'parallel-canary', phases: [phase('a', 'serial', 1), phase('b', 'serial', 1)] })).toEqual([{ after: 'a', continues: 1 }]);
    expect(canaryWaits({ strategy: 'serial', phases: [phase('a', 'serial', 3)] })).toEqual([]);
  });

  it('GIVEN a request log and a wait WHEN the record lacks them THEN each is to be recorded once, oldest first', () => {
    const waiting = run({ status: 'WAITING', startedAt: T0, since: NOW, message: 'w', waits: [{ phase: 'main', after: 'zk-0', continues: 1 }] }, [done(), pendingState()]);
    const log = [2, 1].map((n) => ({ id: `r-${n}`, action: 'pause', via: 'git' as const, result: 'refused' as const, event: 'request-refused', message: 'm', at: NOW }));
    const cp = cpWith(waiting, { requestLog: log });
    expect(unrecordedControl(undefined, cp).map((t) => (t.kind === 'request' ? t.record.id : 'wait'))).toEqual(['r-1', 'r-2', 'wait']);
    expect(unrecordedControl({ requests: [{ id: 'r-1' }, { id: 'r-2' }], currentPlan: waiting }, cp)).toEqual([]);
  });
});

describe('requests carried out elsewhere', () => {
  it('triggers (plan selection) and pod actions (the recovery pass) are not pending here, so they are never refused as unsupported', () => {
    const base = { requestedAt: '2026-03-01T03:00:00.000Z', via: 'git' as const };
    const requests: ControlRequest[] = [
      { ...base, id: 'a', action: 'trigger', plan: 'backup', args: {} },
      { ...base, id: 'b', action: 'pod-restart', pod: 'zk-1' },
      { ...base, id: 'c', action: 'pod-replace', pod: 'zk-2' },
      { ...base, id: 'd', action: 'pause' },
    ] as ControlRequest[];
    expect(pendingRequests(requests, undefined).map((r) => r.id)).toEqual(['d']);
    expect(pendingRequests(requests, { ...emptyCheckpoint({ namespace: 'n', name: 'i' }, 'web'), handledRequests: ['d'] }).map((r) => r.id)).toEqual([]);
  });
});
