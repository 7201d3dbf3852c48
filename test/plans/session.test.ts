/** Checkpoint writes through the session: transient failures retried, bounded, not after an abort. */
import { describe, expect, it } from 'vitest';
import { KubeApiError, KubeTransportError } from '../../src/kube/errors.js';
import { emptyCheckpoint, MemoryCheckpointStore, type Checkpoint } from '../../src/plans/checkpoint.js';
import type { Clock } from '../../src/plans/clock.js';
import { defaultHooks } from '../../src/plans/defaults.js';
import { CheckpointSession } from '../../src/plans/session.js';

const instance = { namespace: 'ns', name: 'app' };
const unavailable = (): KubeApiError => new KubeApiError(503, { reason: 'ServiceUnavailable', message: 'try later' });
const invalid = (): KubeApiError => new KubeApiError(422, { reason: 'Invalid', message: 'bad' });
const noWait: Clock = { now: () => 0, sleep: (_ms, signal) => (signal?.aborted ? Promise.reject(new Error('aborted')) : Promise.resolve()) };

/** A store whose next saves fail as `plan` says: 'fail' (nothing stored) or 'lost' (stored, answer lost). */
class FlakyStore extends MemoryCheckpointStore {
  saves = 0;
  constructor(private readonly plan: Array<'fail' | 'lost' | 'terminal'>) { super(); }
  override async save(cp: Checkpoint, version: string | undefined): Promise<string> {
    this.saves++;
    const next = this.plan.shift();
    if (next === 'fail') throw unavailable();
    if (next === 'terminal') throw invalid();
    const saved = await super.save(cp, version);
    if (next === 'lost') throw new KubeTransportError('socket hang up');
    return saved;
  }
}

async function session(store: FlakyStore, signal?: AbortSignal): Promise<CheckpointSession> {
  // Created without the faults: they concern the writes under test.
  await MemoryCheckpointStore.prototype.save.call(store, emptyCheckpoint(instance, 'web'), undefined);
  return new CheckpointSession(store, emptyCheckpoint(instance, 'web'), '1', () => undefined, (t) => t, { hooks: defaultHooks(), clock: noWait, ...(signal ? { signal } : {}) });
}

const touch = (cp: Checkpoint): Checkpoint => ({ ...cp, handledRequests: [...cp.handledRequests, 'r'] });

describe('checkpoint writes of a session', () => {
  it('GIVEN two 503 answers WHEN a checkpoint is written THEN it is retried and saved', async () => {
    const store = new FlakyStore(['fail', 'fail']);
    const s = await session(store);
    await s.update(touch);
    expect(store.saves).toBe(3);
    expect((await store.load(instance))?.checkpoint.handledRequests).toEqual(['r']);
  });

  it('GIVEN a write that succeeded but whose answer was lost WHEN retried THEN the conflict is recognised as its own write', async () => {
    const store = new FlakyStore(['lost']);
    const s = await session(store);
    await s.update(touch);
    // The session's version is the stored one: the next write does not conflict.
    await s.update(touch);
    expect((await store.load(instance))?.checkpoint.handledRequests).toEqual(['r', 'r']);
  });

  it('GIVEN a terminal answer WHEN written THEN it fails at once', async () => {
    const store = new FlakyStore(['terminal']);
    await expect((await session(store)).update(touch)).rejects.toThrow('bad');
    expect(store.saves).toBe(1);
  });

  it('GIVEN an API server that keeps failing WHEN written THEN it gives up after a bounded number of attempts', async () => {
    const store = new FlakyStore(Array.from({ length: 50 }, () => 'fail' as const));
    await expect((await session(store)).update(touch)).rejects.toThrow('try later');
    expect(store.saves).toBe(5);
  });

  it('GIVEN the run was superseded (signal aborted) WHEN a write fails THEN it is not tried again', async () => {
    const abort = new AbortController();
    abort.abort();
    const store = new FlakyStore(['fail']);
    await expect((await session(store, abort.signal)).update(touch)).rejects.toThrow('try later');
    expect(store.saves).toBe(1);
  });

  it('GIVEN request records written beside the session (a refusal while the plan runs) WHEN the session writes THEN its write goes on top of them', async () => {
    const store = new FlakyStore([]);
    const s = await session(store);
    const stored = await store.load(instance);
    const refusal = { id: 'x-1', action: 'resume', via: 'git', at: 't', result: 'refused', event: 'request-refused', code: 'PLAN_NOT_PAUSED', message: 'not paused' } as const;
    await store.save({ ...stored!.checkpoint, handledRequests: ['x-1'], requestLog: [refusal] }, stored!.version);
    await s.update((cp) => ({ ...cp, framework: 'web2' }));
    const after = (await store.load(instance))?.checkpoint;
    expect(after).toMatchObject({ framework: 'web2', handledRequests: ['x-1'], requestLog: [refusal] });
    expect(s.checkpoint.requestLog).toEqual([refusal]);
  });

  it('GIVEN another process changed more than request records WHEN the session writes THEN it conflicts (one writer advances a run)', async () => {
    const store = new FlakyStore([]);
    const s = await session(store);
    const stored = await store.load(instance);
    await store.save({ ...stored!.checkpoint, framework: 'other' }, stored!.version);
    await expect(s.update(touch)).rejects.toThrow(/changed by another process/);
  });
});
