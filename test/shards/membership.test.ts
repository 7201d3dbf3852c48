/** How one member judges the others' Leases (src/shards/membership.ts), on given times. */
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/kube/object.js';
import { MembershipObserver } from '../../src/shards/index.js';

const lease = (rv: string): KubeObject => ({
  apiVersion: 'coordination.k8s.io/v1', kind: 'Lease',
  metadata: { name: 'baton-member-s-b', resourceVersion: rv, annotations: { 'baton.dev/member': 'b' } },
  spec: { holderIdentity: 'b', leaseDurationSeconds: 1 },
});

describe('the membership observer', () => {
  it('GIVEN a list answer handled late (a busy event loop) THEN the record counts as unchanged only up to when the list was sent', () => {
    const observer = new MembershipObserver(1000, 100);
    expect(observer.observe([lease('1')], 0)[0]?.live).toBe(true);
    // Sent at 500, handled at 2000: the server answered somewhere in between, and b may have renewed
    // right after that answer. b is live (quiet 500 ms of its 900), not gone (quiet 2000 ms).
    const [b] = observer.observe([lease('1')], 2000, 500);
    expect(b?.live).toBe(true);
    expect(b?.quietMs).toBe(500);
    // A list sent after b's lease could have run out finds it gone.
    expect(observer.observe([lease('1')], 2100, 950)[0]?.live).toBe(false);
  });

  it('GIVEN a new record in a late answer THEN it counts from when the answer arrived', () => {
    const observer = new MembershipObserver(1000, 100);
    observer.observe([lease('1')], 0);
    observer.observe([lease('2')], 3000, 100);
    expect(observer.observe([lease('2')], 3700, 3500)[0]?.live).toBe(true);
    expect(observer.observe([lease('2')], 4000, 3900)[0]?.live).toBe(false);
  });
});
