/**
 * The scale bench's takeover measurement (bench/_takeover.ts, issue #20's `takeoverSeconds`): each
 * survivor's first view without the killed member counts, dated by the agent's own log time, and a
 * later view change (another member flapping) or a late read by the bench does not move it.
 */
import { describe, expect, it } from 'vitest';
import { takeoverMs, takeoverTrace, type ViewLine } from '../../bench/_takeover.js';

const KILL = 100_000;
const view = (agentAt: number, members: string[], benchAt = agentAt): ViewLine => ({ agentAt, benchAt, members, gone: [] });

describe('the scale bench\'s takeover measurement', () => {
  it('GIVEN survivors whose first view without the victim comes at different times THEN the takeover is the last of those firsts, by the agents\' own times', () => {
    const s1 = [view(1000, ['v', 'a', 'b', 'c']), view(KILL + 12_000, ['a', 'b', 'c'], KILL + 15_000)];
    const s2 = [view(1000, ['v', 'a', 'b', 'c']), view(KILL + 12_500, ['a', 'b', 'c'])];
    expect(takeoverMs([s1, s2], KILL, 'v')).toBe(12_500);
  });

  it('GIVEN a survivor that later changes its view again (another member briefly gone) THEN its first view without the victim still counts', () => {
    const s1 = [view(KILL + 12_000, ['a', 'b', 'c']), view(KILL + 19_000, ['a', 'b']), view(KILL + 20_000, ['a', 'b', 'c'])];
    const s2 = [view(KILL + 12_500, ['a', 'b', 'c'])];
    expect(takeoverMs([s1, s2], KILL, 'v')).toBe(12_500);
  });

  it('GIVEN a view of the right size that still holds the victim (another survivor dropped instead) THEN it is no takeover', () => {
    const s1 = [view(KILL + 5000, ['v', 'a', 'b'])];
    const s2 = [view(KILL + 12_500, ['a', 'b', 'c'])];
    expect(takeoverMs([s1, s2], KILL, 'v')).toBeUndefined();
    expect(takeoverMs([[...s1, view(KILL + 13_000, ['a', 'b'])], s2], KILL, 'v')).toBe(13_000);
  });

  it('GIVEN the victim\'s Lease writes and the survivors\' sightings THEN the trace dates them from the kill', () => {
    const s1: ViewLine[] = [{ agentAt: KILL + 13_000, benchAt: KILL + 13_100, members: ['a'], gone: [{ member: 'v', leaseLastChangedSeenAt: new Date(KILL + 400).toISOString() }] }];
    const trace = takeoverTrace({
      survivors: [s1], killedAt: KILL, victimId: 'v',
      victimLease: [{ at: KILL - 1700, resourceVersion: '7', renewTime: KILL - 1750 }, { at: KILL + 300, resourceVersion: '9', renewTime: KILL - 20 }],
      victimWrites: [{ at: KILL - 1720, ms: 30 }, { at: KILL - 10 }, { at: KILL + 50, ms: 200 }],
    });
    expect(trace).toEqual({
      killedAt: KILL, survivorSeconds: [13], survivorSecondsReadByBench: [13.1], lastChangeSeconds: 0.3, lastRenewTimeSeconds: -0,
      survivorSawLastChangeSeconds: [0.4], writesInFlightAtKill: 1, writesAfterKill: 1,
    });
  });
});
