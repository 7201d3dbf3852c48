import { describe, expect, it } from 'vitest';
import { identityKey, Inventory, type InventoryEntry } from '../../src/plans/inventory.js';

const ref = (kind: string, name: string) => ({ apiVersion: 'v1', kind, name, namespace: 'shop' });

describe('Inventory: what an instance owns, as a value', () => {
  // GIVEN objects applied by deploy and by a backup plan
  const inv = Inventory.of().with([ref('ConfigMap', 'a'), ref('Service', 'b')], 'deploy').with([ref('Job', 'backup')], 'backup');

  it.each<[string, string, string[], string[]]>([
    ['after update, deploy objects it no longer renders are stale', 'update', ['ConfigMap/a'], ['Service/b']],
    ['after upgrade, the whole lifecycle family is compared', 'upgrade', [], ['ConfigMap/a', 'Service/b']],
    ['after deploy, objects of other plans (a backup Job) are never pruned', 'deploy', ['ConfigMap/a', 'Service/b'], []],
    ['after backup, only the backup plan\'s own objects are compared', 'backup', [], ['Job/backup']],
  ])('%s', (_name, plan, rendered, stale) => {
    const renderedRefs = rendered.map((r) => ref(r.split('/')[0]!, r.split('/')[1]!));
    expect(inv.diff(renderedRefs, plan).map((e) => `${e.kind}/${e.name}`)).toEqual(stale);
  });

  it('moves a re-applied object to the newer plan and keeps entries unique', () => {
    const next = inv.with([ref('Job', 'backup')], 'deploy');
    expect(next.size).toBe(3);
    expect(next.entries.find((e) => e.name === 'backup')?.plan).toBe('deploy');
  });

  it('drops entries with without() and leaves the original value unchanged', () => {
    const next = inv.without([ref('Service', 'b')]);
    expect(next.has(ref('Service', 'b'))).toBe(false);
    expect(inv.has(ref('Service', 'b'))).toBe(true);
  });
});

describe('Inventory: objects are compared by identity (group, kind, namespace, name), not by apiVersion', () => {
  const hpa = (apiVersion: string, name = 'h') => ({ apiVersion, kind: 'HorizontalPodAutoscaler', name, namespace: 'shop' });
  // GIVEN deploy applied an autoscaling/v2beta2 HPA and a ConfigMap
  const inv = Inventory.of().with([hpa('autoscaling/v2beta2'), ref('ConfigMap', 'a')], 'deploy');

  it('GIVEN an upgrade renders the same HPA as autoscaling/v2 THEN it is not stale', () => {
    expect(inv.diff([hpa('autoscaling/v2'), ref('ConfigMap', 'a')], 'upgrade')).toEqual([]);
  });

  it('GIVEN the re-apply under the new version THEN one entry remains, with the newest apiVersion and plan', () => {
    const next = inv.with([hpa('autoscaling/v2')], 'upgrade');
    expect(next.size).toBe(2);
    expect(next.entries.filter((e) => e.kind === 'HorizontalPodAutoscaler')).toEqual([{ ...hpa('autoscaling/v2'), plan: 'upgrade' }]);
    expect(next.has(hpa('autoscaling/v2beta2'))).toBe(true);
  });

  it('GIVEN the same kind and name in another API group THEN it is a different object and the old one is stale', () => {
    const stale = inv.diff([hpa('example.com/v1'), ref('ConfigMap', 'a')], 'upgrade');
    expect(stale).toEqual([{ ...hpa('autoscaling/v2beta2'), plan: 'deploy' }]);
  });

  it('GIVEN the HPA is no longer rendered at all THEN it is still pruned, under the apiVersion it was applied with', () => {
    expect(inv.diff([ref('ConfigMap', 'a')], 'update')).toEqual([{ ...hpa('autoscaling/v2beta2'), plan: 'deploy' }]);
  });

  it('drops an entry with without() whatever version the object is named with', () => {
    expect(inv.without([hpa('autoscaling/v1')]).has(hpa('autoscaling/v2beta2'))).toBe(false);
  });

  it('keys core objects by an empty group and cluster-scoped ones by an empty namespace', () => {
    expect(identityKey(ref('ConfigMap', 'a'))).toBe('/ConfigMap/shop/a');
    expect(identityKey({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', name: 'r' })).toBe('rbac.authorization.k8s.io/ClusterRole//r');
  });

  it('GIVEN an older checkpoint holding one object under two apiVersions THEN it loads as one entry with the newer version', () => {
    const legacy: InventoryEntry[] = [
      { ...hpa('autoscaling/v2'), plan: 'upgrade' },
      { ...hpa('autoscaling/v2beta2'), plan: 'deploy' },
      { ...hpa('autoscaling/v1', 'other'), plan: 'deploy' },
    ];
    for (const order of [legacy, [...legacy].reverse()]) {
      const loaded = Inventory.of(order);
      expect(loaded.size).toBe(2);
      expect(loaded.entries.map((e) => `${e.apiVersion} ${e.name} ${e.plan}`)).toEqual(['autoscaling/v2 h upgrade', 'autoscaling/v1 other deploy']);
    }
  });
});
