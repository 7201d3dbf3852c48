/** Tenancy rules: which tenant an instance file belongs to, and the frameworks, namespaces and kinds it may use. */
import { describe, expect, it } from 'vitest';
import { tenantSchema, type TenantDecl } from '../../src/render/schemas.js';
import type { RenderedPlan } from '../../src/render/types.js';
import { globToRegExp, impersonationFor, instanceViolations, kindMatches, planViolations, tenantOf } from '../../src/tenancy/index.js';

const tenants: TenantDecl[] = [
  tenantSchema.parse({ name: 'team-a', instances: ['instances/team-a-*/*.yaml'], frameworks: ['redis', 'web'], namespaces: ['team-a-*'], serviceAccount: { namespace: 'baton-system', name: 'tenant-team-a' } }),
  tenantSchema.parse({ name: 'platform', instances: ['instances/platform/**'], namespaces: ['platform', 'monitoring'], kinds: ['*'], clusterKinds: ['apiextensions.k8s.io/CustomResourceDefinition', 'rbac.authorization.k8s.io/*'] }),
];

function plan(objects: { apiVersion: string; kind: string; name: string; namespace?: string }[]): RenderedPlan {
  return {
    instance: { name: 'cache', namespace: 'team-a-prod' }, framework: { name: 'redis', version: '1.0.0', appVersion: '' }, plan: 'deploy', strategy: 'serial', readiness: [], sensitiveParams: [],
    phases: [{ name: 'main', strategy: 'serial', steps: [{ name: 'all', timeoutSeconds: 600, actions: objects.map((o) => ({ action: 'apply' as const, task: 't', template: `${o.kind.toLowerCase()}.yaml.ejs`, force: false, object: { apiVersion: o.apiVersion, kind: o.kind, metadata: { name: o.name, ...(o.namespace ? { namespace: o.namespace } : {}) } } })) }] }],
  };
}

describe('tenant of an instance file', () => {
  it('matches path globs; none, several or no tenants configured are told apart', () => {
    expect(tenantOf(tenants, 'instances/team-a-prod/cache.yaml')).toMatchObject({ kind: 'tenant', tenant: { name: 'team-a' } });
    expect(tenantOf(tenants, 'instances/platform/monitoring.yaml')).toMatchObject({ kind: 'tenant', tenant: { name: 'platform' } });
    expect(tenantOf(tenants, 'instances/team-b/x.yaml')).toEqual({ kind: 'unassigned' });
    expect(tenantOf(undefined, 'instances/team-b/x.yaml')).toEqual({ kind: 'none' });
    expect(tenantOf([...tenants, { ...tenants[0]!, name: 'copy' }], 'instances/team-a-x/y.yaml')).toEqual({ kind: 'ambiguous', tenants: ['team-a', 'copy'] });
  });

  it('globs: * stays within a segment, ** crosses them', () => {
    expect(globToRegExp('instances/*/a.yaml').test('instances/x/y/a.yaml')).toBe(false);
    expect(globToRegExp('instances/**/a.yaml').test('instances/x/y/a.yaml')).toBe(true);
    expect(globToRegExp('instances/**/a.yaml').test('instances/a.yaml')).toBe(true);
  });
});

describe('instance violations', () => {
  it('refuses a framework and a namespace outside the tenant, located in the instance file', () => {
    const found = instanceViolations(tenants, { file: 'instances/team-a-prod/db.yaml', namespace: 'team-a-prod', framework: 'postgres', locate: () => ({ line: 4, column: 12 }) });
    expect(found.map((p) => [p.code, p.line, p.message])).toEqual([['TENANT_FRAMEWORK', 4, 'tenant team-a may not use framework postgres (allowed: redis, web)']]);
    const moved = instanceViolations([{ ...tenants[0]!, instances: ['instances/**'] }], { file: 'instances/kube-system/x.yaml', namespace: 'kube-system', framework: 'redis' });
    expect(moved.map((p) => p.code)).toEqual(['TENANT_NAMESPACE']);
    expect(instanceViolations(tenants, { file: 'instances/nobody/x.yaml', namespace: 'nobody', framework: 'redis' }).map((p) => p.code)).toEqual(['TENANT_NONE']);
    expect(instanceViolations(undefined, { file: 'instances/nobody/x.yaml', namespace: 'nobody', framework: 'redis' })).toEqual([]);
  });
});

describe('plan violations', () => {
  it('allows the default workload kinds, refuses others and every cluster-scoped kind by default', () => {
    const rendered = plan([
      { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'cache', namespace: 'team-a-prod' },
      { apiVersion: 'v1', kind: 'Service', name: 'cache', namespace: 'team-a-prod' },
      { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', name: 'cache-admin' },
      { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', name: 'cache', namespace: 'team-a-prod' },
    ]);
    const found = planViolations(tenants, 'instances/team-a-prod/cache.yaml', rendered, 'frameworks/redis/1.0.0');
    expect(found.map((p) => [p.code, p.file])).toEqual([['TENANT_KIND', 'frameworks/redis/1.0.0/templates/clusterrole.yaml.ejs'], ['TENANT_KIND', 'frameworks/redis/1.0.0/templates/role.yaml.ejs']]);
    expect(found[0]!.message).toBe('tenant team-a may not create cluster-scoped ClusterRole cache-admin (cluster-scoped kinds are refused unless listed in clusterKinds); plan deploy, step main/all');
  });

  it('a tenant may be given cluster kinds and every namespaced kind', () => {
    const rendered = plan([{ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name: 'x.example.com' }, { apiVersion: 'example.com/v1', kind: 'Widget', name: 'w', namespace: 'platform' }]);
    expect(planViolations(tenants, 'instances/platform/w.yaml', rendered, 'frameworks/w/1.0.0')).toEqual([]);
    const ns = plan([{ apiVersion: 'v1', kind: 'Namespace', name: 'platform' }]);
    expect(planViolations(tenants, 'instances/platform/w.yaml', ns, 'frameworks/w/1.0.0').map((p) => p.code)).toEqual(['TENANT_KIND']);
  });

  it('kind patterns: core kinds by name, group/Kind, group/*, *', () => {
    expect(kindMatches('Secret', 'v1', 'Secret')).toBe(true);
    expect(kindMatches('Secret', 'example.com/v1', 'Secret')).toBe(false);
    expect(kindMatches('apps/*', 'apps/v1', 'Deployment')).toBe(true);
    expect(kindMatches('apps/Deployment', 'apps/v1', 'StatefulSet')).toBe(false);
  });

  it('names the ServiceAccount the agent impersonates', () => {
    expect(impersonationFor(tenants, 'instances/team-a-prod/cache.yaml')).toBe('system:serviceaccount:baton-system:tenant-team-a');
    expect(impersonationFor(tenants, 'instances/platform/x.yaml')).toBeUndefined();
  });
});
