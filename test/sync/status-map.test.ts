import { describe, expect, it } from 'vitest';
import type { InstanceStatus } from '../../src/sync/status-file.js';
import { StatusMap } from '../../src/sync/status-map.js';

const status = (name: string, extra: Partial<InstanceStatus> = {}): InstanceStatus =>
  ({ instance: { namespace: 'ns', name }, ...extra }) as unknown as InstanceStatus;
const failing = (name: string, at: string, extra: Partial<InstanceStatus> = {}): InstanceStatus =>
  status(name, { sync: { status: 'Failed', failure: { nextRetryAt: at } }, ...extra } as unknown as Partial<InstanceStatus>);

describe('the statuses an idle poll asks for a retry time', () => {
  it('GIVEN statuses set, replaced, deleted and cleared THEN withRetryTime yields exactly those with a retry time (not children), as the map holds them', () => {
    const m = new StatusMap();
    m.set('ns/a', status('a'));
    m.set('ns/b', failing('b', '2026-11-24T18:00:00Z'));
    m.set('ns/c', failing('c', '2026-11-24T18:01:00Z'));
    m.set('ns/child', failing('child', '2026-11-24T18:02:00Z', { parent: { namespace: 'ns', name: 'a' } } as unknown as Partial<InstanceStatus>));
    expect([...m.withRetryTime()].map(([k]) => k).sort()).toEqual(['ns/b', 'ns/c']);
    m.set('ns/b', status('b')); // succeeded since
    m.set('ns/a', failing('a', '2026-11-24T18:03:00Z'));
    m.delete('ns/c');
    expect([...m.withRetryTime()].map(([k, s]) => [k, s.sync?.failure?.nextRetryAt])).toEqual([['ns/a', '2026-11-24T18:03:00Z']]);
    expect(m.size).toBe(3);
    m.clear();
    expect([...m.withRetryTime()]).toEqual([]);
  });
});
