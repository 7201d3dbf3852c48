import { describe, expect, it } from 'vitest';
import { decide, supersedes } from '../../src/plans/concurrency.js';
import type { Selection } from '../../src/plans/selection.js';
import type { PlanRun, RunState } from '../../src/plans/state.js';

const runIn = (state: RunState): PlanRun => ({ id: 'x', plan: 'deploy', reason: 'r', args: {}, frameworkVersion: '1.0.0', strategy: 'serial', state, phases: [] });
const T = '2026-01-01T00:00:00.000Z';
const running = runIn({ status: 'IN_PROGRESS', startedAt: T, message: '' });
const retrying = runIn({ status: 'ERROR', startedAt: T, message: 'x', error: { code: 'E', message: 'x' }, attempt: 1 });
const done = runIn({ status: 'COMPLETE', startedAt: T, finishedAt: T, message: '' });
const failed = runIn({ status: 'FATAL_ERROR', startedAt: T, finishedAt: T, message: '', error: { code: 'E', message: 'x' } });
const start: Selection = { kind: 'run', plan: 'update', reason: 'values changed', args: {}, warnings: [] };
const refuse: Selection = { kind: 'refuse', code: 'IMMUTABLE_PARAM', message: 'no', details: {} };
const nothing: Selection = { kind: 'nothing', reason: 'same' };
const remove: Selection = { kind: 'remove', cleanupPlan: 'cleanup', reason: 'removed' };

describe('plan concurrency: one plan per instance at a time', () => {
  it.each<[string, PlanRun | undefined, Selection, string, boolean]>([
    ['a change with no plan running starts its plan', undefined, start, 'start', false],
    ['a change while a plan runs supersedes it', running, start, 'start', true],
    ['a change while a plan retries supersedes it', retrying, start, 'start', true],
    ['a change after a completed plan starts without superseding', done, start, 'start', false],
    ['a change after a fatal plan starts a new one', failed, start, 'start', false],
    ['a refused change leaves the running plan alone (it resumes)', running, refuse, 'resume', false],
    ['a refused change with nothing running is only reported', done, refuse, 'idle', false],
    ['no change resumes an unfinished plan after a restart', running, nothing, 'resume', false],
    ['no change after a fatal plan does nothing until the desired state changes', failed, nothing, 'idle', false],
    ['removal supersedes a running plan', running, remove, 'remove', true],
  ])('%s', (_name, active, selection, kind, superseding) => {
    const d = decide(active, selection);
    expect(d.kind).toBe(kind);
    expect('supersedes' in d && d.supersedes !== undefined).toBe(superseding);
  });

  it.each<[Selection, boolean]>([[start, true], [remove, true], [refuse, false], [nothing, false]])('a %j selection supersedes a running plan: %s', (selection, expected) => {
    expect(supersedes(selection)).toBe(expected);
  });
});
