import { describe, expect, it } from 'vitest';
import { Inventory } from '../../src/plans/inventory.js';

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
