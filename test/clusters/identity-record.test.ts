/**
 * The agent's record of which cluster each baton.yaml name reached (src/clusters/identity.ts), against
 * the simulated API server: first sight records, the same uid passes, another uid is reported with
 * what was recorded, agents recording at once agree, and an entry edited into something else is refused.
 */
import { describe, expect, it } from 'vitest';
import { ClusterIdentityForbiddenError, ClusterIdentityRecord, identityRecordName } from '../../src/clusters/index.js';
import { clusterForFile } from '../helpers/engine-harness.js';

describe('the record of cluster identities', () => {
  const world = clusterForFile();
  let n = 0;
  const record = (): ClusterIdentityRecord => new ClusterIdentityRecord(world.client, 'baton-system', `baton-clusters-test${++n}`, () => new Date('2026-11-24T10:00:00.000Z'));

  it('names the ConfigMap by repository and branch', () => {
    expect(identityRecordName('https://git.example/ops.git', 'main')).toMatch(/^baton-clusters-[0-9a-f]{12}$/);
    expect(identityRecordName('https://git.example/ops.git', 'main')).not.toBe(identityRecordName('https://git.example/ops.git', 'staging'));
  });

  it('GIVEN a name seen first THEN it is recorded (namespace and ConfigMap created); the same uid passes; another is reported with the recorded one', async () => {
    const r = record();
    expect(await r.confirm('edge', { uid: 'uid-a', server: 'https://a:6443' })).toEqual({ kind: 'recorded' });
    const same = await r.confirm('edge', { uid: 'uid-a', server: 'https://a.example:6443' });
    expect(same).toEqual({ kind: 'same', recorded: { uid: 'uid-a', server: 'https://a:6443', since: '2026-11-24T10:00:00.000Z' } });
    expect(await r.confirm('edge', { uid: 'uid-b', server: 'https://a:6443' })).toEqual({ kind: 'changed', recorded: { uid: 'uid-a', server: 'https://a:6443', since: '2026-11-24T10:00:00.000Z' } });
    // Another name has an entry of its own.
    expect(await r.confirm('lab', { uid: 'uid-b', server: 'https://b:6443' })).toEqual({ kind: 'recorded' });
    const cm = await world.client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'baton-system', name: r.name });
    expect(Object.keys((cm?.data ?? {}) as Record<string, string>).sort()).toEqual(['edge', 'lab']);
  });

  it('GIVEN several agents recording one name at once THEN one identity wins and every other sees it', async () => {
    const r = record();
    const results = await Promise.all(['uid-1', 'uid-2', 'uid-3', 'uid-4'].map((uid) => r.confirm('edge', { uid, server: `https://${uid}` })));
    expect(results.filter((x) => x.kind === 'recorded')).toHaveLength(1);
    const winner = ['uid-1', 'uid-2', 'uid-3', 'uid-4'][results.findIndex((x) => x.kind === 'recorded')];
    for (const x of results) if (x.kind !== 'recorded') expect(x).toMatchObject({ kind: 'changed', recorded: { uid: winner } });
  });

  it('GIVEN an entry edited into something else THEN it is refused, never overwritten', async () => {
    const r = record();
    await r.confirm('edge', { uid: 'uid-a', server: 'https://a' });
    const cm = await world.client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'baton-system', name: r.name });
    if (cm === undefined) throw new Error('no record');
    await world.client.update({ ...cm, data: { edge: 'uid-a' } });
    await expect(r.confirm('edge', { uid: 'uid-a', server: 'https://a' })).rejects.toThrow(`ConfigMap baton-system/${r.name} key edge: expected JSON {"uid": "<kube-system namespace uid>"`);
    expect(((await world.client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'baton-system', name: r.name }))?.data as Record<string, string>).edge).toBe('uid-a');
    expect(r.forgetCommand('edge')).toBe(`kubectl -n baton-system patch configmap ${r.name} --type json -p '[{"op":"remove","path":"/data/edge"}]'`);
  });
});

describe('the error of an account that may not read kube-system', () => {
  const where = { cluster: 'edge', kubeconfig: "the agent's kubeconfig", context: 'edge-eu-1' };
  const denial = (user: string): { status: number; reason: string; message: string } => ({ status: 403, reason: 'Forbidden', message: `namespaces "kube-system" is forbidden: User "${user}" cannot get resource "namespaces" in API group "" at the cluster scope` });

  it('GIVEN a ServiceAccount denied THEN the binding command names it as a ServiceAccount; a User as a user; an unnamed account as a placeholder', () => {
    const sa = new ClusterIdentityForbiddenError(where, denial('system:serviceaccount:baton-system:baton-agent'));
    expect(sa.code).toBe('CLUSTER_CONFIG');
    expect(sa.user).toBe('system:serviceaccount:baton-system:baton-agent');
    expect(sa.message).toContain('cluster "edge" does not let the agent read its identity (the agent\'s kubeconfig, context edge-eu-1): the agent\'s account there (User "system:serviceaccount:baton-system:baton-agent") may not `get` namespace kube-system (403 Forbidden)');
    expect(sa.message).toContain('--clusterrole=baton-cluster-identity --serviceaccount=baton-system:baton-agent`');
    expect(new ClusterIdentityForbiddenError(where, denial('alice')).message).toContain('--clusterrole=baton-cluster-identity --user=alice`');
    const unnamed = new ClusterIdentityForbiddenError(where, { status: 403, reason: 'Forbidden', message: 'forbidden' });
    expect(unnamed.message).toContain("the agent's account there may not `get`");
    expect(unnamed.message).toContain('--user=<the user of that kubeconfig>`');
  });
});
