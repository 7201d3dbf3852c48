/**
 * Issue 20 (API calls per instance): the instance's namespace was looked up (GET) at the start of
 * every instance run, and 16 runs starting at once in a new namespace all found it missing and all
 * tried to create it (56 creates for 20 namespaces in a 1,000-instance bench). GIVEN many runs in
 * one namespace WHEN they ensure it THEN one lookup and one create serve them all, for a while; a
 * namespace forgotten (a write into it failed) or known for longer than KNOWN_FOR_MS is asked again.
 */
import { describe, expect, it } from 'vitest';
import { ensureNamespace, forgetNamespace, KNOWN_FOR_MS } from '../../src/plans/namespace.js';
import { FakeKube } from './fake-client.js';

describe('ensureNamespace', () => {
  it('GIVEN 16 runs starting at once in a new namespace WHEN they ensure it THEN it is looked up and created once', async () => {
    const kube = new FakeKube();
    const results = await Promise.all(Array.from({ length: 16 }, () => ensureNamespace(kube, 'shop')));
    expect(results.filter((r) => r === 'created')).toHaveLength(1);
    expect(kube.count('get', 'shop')).toBe(1);
    expect(kube.count('create', 'shop')).toBe(1);
    expect(await kube.get({ apiVersion: 'v1', kind: 'Namespace', name: 'shop' })).toBeDefined();
  });

  it('GIVEN a namespace seen WHEN later runs ensure it THEN the API is not asked again until it is forgotten or KNOWN_FOR_MS passed', async () => {
    const kube = new FakeKube();
    let now = 1_000;
    const clock = (): number => now;
    expect(await ensureNamespace(kube, 'shop', clock)).toBe('created');
    for (let i = 0; i < 5; i++) expect(await ensureNamespace(kube, 'shop', clock)).toBe('exists');
    expect(kube.calls.length).toBe(2);

    // A write into it failed: it may have been deleted, so the next run asks (and creates it again).
    await kube.delete({ apiVersion: 'v1', kind: 'Namespace', name: 'shop' });
    forgetNamespace(kube, 'shop');
    expect(await ensureNamespace(kube, 'shop', clock)).toBe('created');

    now += KNOWN_FOR_MS;
    const before = kube.count('get', 'shop');
    expect(await ensureNamespace(kube, 'shop', clock)).toBe('exists');
    expect(kube.count('get', 'shop')).toBe(before + 1);
  });

  it('GIVEN a lookup that failed WHEN the next run ensures the namespace THEN it asks again', async () => {
    const kube = new FakeKube();
    kube.fault = (verb) => (verb === 'get' ? new Error('connection reset') : undefined);
    await expect(ensureNamespace(kube, 'shop')).rejects.toThrow('connection reset');
    kube.fault = () => undefined;
    expect(await ensureNamespace(kube, 'shop')).toBe('created');
  });
});
