/** The lease fence and the fenced KubeClient (src/fencing/). */
import { describe, expect, it } from 'vitest';
import type { KubeClient } from '../../src/kube/client.js';
import type { KubeObject } from '../../src/kube/object.js';
import { FenceLostError, LeaseFence, fencedClient } from '../../src/fencing/index.js';

function fenceAt(): { fence: LeaseFence; advance: (ms: number) => void } {
  let now = 1000;
  return { fence: new LeaseFence({ renewDeadlineMs: 100, now: () => now }), advance: (ms) => { now += ms; } };
}

describe('the lease fence', () => {
  it('GIVEN no lease yet WHEN checked THEN writes are refused', () => {
    expect(() => fenceAt().fence.check('apply')).toThrow(FenceLostError);
  });

  it('GIVEN a renewal WHEN checked before the renew deadline THEN writes go out, with the lease term', () => {
    const { fence, advance } = fenceAt();
    fence.renewed(1000, 7);
    advance(99);
    expect(() => fence.check('apply')).not.toThrow();
    expect(fence.term).toBe(7);
  });

  it('GIVEN a process paused past the renew deadline WHEN it checks on waking THEN it is lost for good, even if a late renewal succeeds', () => {
    const { fence, advance } = fenceAt();
    const lost: string[] = [];
    fence.onLost((why) => lost.push(why));
    fence.renewed(1000, 1);
    advance(5000); // SIGSTOP ... SIGCONT
    expect(() => fence.check('push status commits')).toThrow(/refusing to push status commits: no lease renewal within the renew deadline/);
    fence.renewed(6000, 1);
    expect(() => fence.check('apply')).toThrow(FenceLostError);
    expect(lost).toHaveLength(1);
    expect(fence.term).toBeUndefined();
  });

  it('GIVEN a renewal that took a while WHEN it succeeds THEN the fence extends from when its request left, not from its answer', () => {
    const { fence, advance } = fenceAt();
    fence.renewed(1000, 1);
    advance(50);
    const sentAt = fence.now();
    advance(30);
    fence.renewed(sentAt, 1);
    advance(69); // 1149: within 100 ms of the request (1050)
    expect(() => fence.check('apply')).not.toThrow();
    advance(1);
    expect(() => fence.check('apply')).toThrow(FenceLostError);
  });

  it('GIVEN a renewal whose answer came after the deadline WHEN it succeeds THEN the fence stays lost (the deadline passed unconfirmed)', () => {
    const { fence, advance } = fenceAt();
    fence.renewed(1000, 1);
    advance(90);
    const sentAt = fence.now();
    advance(50);
    fence.renewed(sentAt, 1);
    expect(fence.isLost).toBe(true);
  });

  it('GIVEN the lease held again under another term WHEN renewed THEN lost (someone else led in between)', () => {
    const { fence } = fenceAt();
    fence.renewed(1000, 1);
    fence.renewed(1000, 2);
    expect(fence.isLost).toBe(true);
  });
});

describe('the fenced KubeClient', () => {
  const calls: string[] = [];
  const obj: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', namespace: 'ns' } };
  const inner = new Proxy({}, { get: (_t, name: string) => async () => { calls.push(name); return name === 'get' ? obj : obj; } }) as unknown as KubeClient;

  it('GIVEN a lost fence WHEN the engine writes THEN nothing reaches the API server; reads still do', async () => {
    const { fence, advance } = fenceAt();
    const client = fencedClient(inner, fence);
    fence.renewed(1000, 1);
    await client.apply(obj, { fieldManager: 'baton' });
    advance(1000);
    const writes = [
      () => client.apply(obj, { fieldManager: 'baton' }), () => client.create(obj), () => client.update(obj), () => client.updateStatus(obj),
      () => client.patch({ apiVersion: 'v1', kind: 'ConfigMap', name: 'x', namespace: 'ns' }, {}, 'merge'), () => client.delete({ apiVersion: 'v1', kind: 'ConfigMap', name: 'x', namespace: 'ns' }),
    ];
    for (const write of writes) await expect(write()).rejects.toThrow(FenceLostError);
    await client.get({ apiVersion: 'v1', kind: 'ConfigMap', name: 'x', namespace: 'ns' });
    expect(calls).toEqual(['apply', 'get']);
  });
});
