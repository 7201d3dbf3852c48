/** Deriving the transitions still to record from the record and the checkpoint (src/sync/transitions.ts). */
import { describe, expect, it } from 'vitest';
import { emptyCheckpoint, type Checkpoint } from '../../src/plans/checkpoint.js';
import type { PlanRun, RunState } from '../../src/plans/state.js';
import { unrecordedTransitions, type PlanRecord } from '../../src/sync/transitions.js';

const T0 = '2026-01-01T00:00:00.000Z';
const at = (s: number): string => new Date(Date.parse(T0) + s * 1000).toISOString();
const inProgress: RunState = { status: 'IN_PROGRESS', startedAt: T0, message: 'running' };
const done = (s: number): RunState => ({ status: 'COMPLETE', startedAt: T0, finishedAt: at(s), message: 'done' });
const failed: RunState = { status: 'FATAL_ERROR', startedAt: T0, finishedAt: at(9), message: 'boom', error: { code: 'X', message: 'boom' } };

function run(id: string, state: RunState, phases: Record<string, RunState> = {}): PlanRun {
  return {
    id, plan: 'deploy', reason: 'r', args: {}, frameworkVersion: '1.0.0', strategy: 'serial', state,
    phases: Object.entries(phases).map(([name, s]) => ({ name, strategy: 'serial', state: s, steps: [] })),
  };
}

function checkpoint(active: PlanRun | undefined, history: PlanRun[] = []): Checkpoint {
  return { ...emptyCheckpoint({ namespace: 'ns', name: 'i' }, 'web'), ...(active ? { active } : {}), history };
}

const record = (currentPlan?: PlanRun, recent: string[] = []): PlanRecord => ({ ...(currentPlan ? { currentPlan } : {}), recentPlans: recent.map((id) => ({ id })) });
const events = (r: PlanRecord | undefined, cp: Checkpoint): string[] => unrecordedTransitions(r, cp).map((t) => `${t.run.id}:${t.event}${t.phase ? `:${t.phase}` : ''}`);

describe('transitions derived from the record and the checkpoint', () => {
  it('GIVEN a resumed run whose start is on record WHEN derived THEN nothing (no second start)', () => {
    const a = run('a', inProgress, { one: done(1), two: inProgress });
    expect(events(record(a), checkpoint(a))).toEqual([]);
  });

  it('GIVEN a run finished in the checkpoint but only started on record (a crash) WHEN derived THEN its phases and end, in order', () => {
    const recorded = run('a', inProgress, { one: { status: 'PENDING', message: '' }, two: { status: 'PENDING', message: '' } });
    const now = run('a', done(5), { one: done(3), two: done(4) });
    expect(events(record(recorded), checkpoint(now))).toEqual(['a:phase-complete:one', 'a:phase-complete:two', 'a:plan-complete']);
    expect(events(record(now), checkpoint(now))).toEqual([]);
  });

  it('GIVEN parallel phases that finished in another order WHEN derived THEN by finish time', () => {
    const now = run('a', inProgress, { one: done(4), two: done(2) });
    expect(events(record(run('a', inProgress)), checkpoint(now))).toEqual(['a:phase-complete:two', 'a:phase-complete:one']);
  });

  it('GIVEN a recorded run replaced by a newer one WHEN derived THEN the old one ends superseded before the new one starts', () => {
    const old = run('a', inProgress, { one: inProgress });
    const archived = { ...old, state: { ...inProgress, message: 'superseded by deploy' } };
    expect(events(record(old), checkpoint(run('b', inProgress), [archived]))).toEqual(['a:plan-superseded', 'b:plan-started']);
  });

  it('GIVEN runs that came and went while nothing was committed WHEN derived THEN each is told whole, oldest first', () => {
    const a = run('a', inProgress);
    const history = [run('c', done(8)), run('b', failed), { ...a, state: done(2) }];
    expect(events(record(a), checkpoint(run('d', inProgress), history))).toEqual([
      'a:plan-complete', 'b:plan-started', 'b:plan-failed', 'c:plan-started', 'c:plan-complete', 'd:plan-started',
    ]);
  });

  it('GIVEN no record at all (a new instance whose first runs were lost in a crash) WHEN derived THEN every run is told, oldest first', () => {
    const superseded = { ...run('a', inProgress), state: { ...inProgress, message: 'superseded by deploy' } };
    expect(events(undefined, checkpoint(run('c', done(3)), [run('b', done(2)), superseded]))).toEqual([
      'a:plan-started', 'a:plan-superseded', 'b:plan-started', 'b:plan-complete', 'c:plan-started', 'c:plan-complete',
    ]);
  });

  it('GIVEN a run not yet started (PENDING) WHEN derived THEN nothing for it', () => {
    expect(events(record(), checkpoint(run('a', { status: 'PENDING', message: 'waiting' })))).toEqual([]);
  });

  it('GIVEN a record read back masked (a sensitive value equal to a phase name or a state word) WHEN derived THEN nothing is told twice', () => {
    const now = run('a', done(5), { main: done(3) });
    const maskedState = (s: number): RunState => ({ ...done(s), status: '***' } as unknown as RunState);
    const masked: PlanRun = { ...now, state: maskedState(5), phases: [{ name: '***', strategy: 'serial', state: maskedState(3), steps: [] }] };
    expect(events(record(masked), checkpoint(now))).toEqual([]);
  });
});
