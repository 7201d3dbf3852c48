/**
 * The agent's least-privilege RBAC: exactly the kinds the frameworks render, in the namespaces their
 * instances use, plus Baton's own needs; cluster-scoped kinds only in the ClusterRole; with tenants the
 * agent only impersonates, and each tenant's ServiceAccount gets its own rules. deploy/rbac.yaml is
 * the output for repo-template and must be current.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/kube/object.js';
import { generateRbac, rbacFor, type FrameworkObjects, type PolicyRule } from '../../src/rbac/index.js';
import { DirectoryTree, Renderer } from '../../src/render/index.js';
import { tenantSchema } from '../../src/render/schemas.js';
import { main } from '../../src/cli/main.js';
import type { CliIO } from '../../src/cli/io.js';

async function runCli(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const io: CliIO & { out: string; err: string } = { out: '', err: '', isTTY: false, cwd: process.cwd(), exitCode: 0, stdout: (t) => { io.out += t; }, stderr: (t) => { io.err += t; } };
  const code = await main(['node', 'baton', ...argv], io);
  return { code, stdout: io.out, stderr: io.err };
}

const obj = (apiVersion: string, kind: string, namespaced = true): KubeObject => ({ apiVersion, kind, metadata: { name: 'x', ...(namespaced ? { namespace: 'rbac' } : {}) } });
const frameworks: FrameworkObjects[] = [
  { name: 'redis', version: '1.0.0', problems: [], objects: [obj('apps/v1', 'StatefulSet'), obj('v1', 'Service'), obj('v1', 'ConfigMap')] },
  { name: 'operator', version: '2.0.0', problems: [], objects: [obj('apiextensions.k8s.io/v1', 'CustomResourceDefinition', false), { ...obj('apiextensions.k8s.io/v1', 'CustomResourceDefinition', false), spec: { group: 'db.example.com', names: { kind: 'Cluster', plural: 'clusters' } } }, obj('db.example.com/v1', 'Cluster'), obj('rbac.authorization.k8s.io/v1', 'ClusterRole', false)] },
  { name: 'unused', version: '1.0.0', problems: [], objects: [obj('apps/v1', 'DaemonSet')] },
];
const instances = [
  { file: 'instances/team-a/cache.yaml', namespace: 'team-a', framework: 'redis', version: '1.0.0' },
  { file: 'instances/platform/db.yaml', namespace: 'platform', framework: 'operator', version: '2.0.0' },
];
const SA = { namespace: 'baton-system', name: 'baton-agent' };
const rulesOf = (objects: KubeObject[], kind: string, namespace?: string): PolicyRule[] => (objects.find((o) => o.kind === kind && o.metadata.namespace === namespace)?.rules ?? []) as PolicyRule[];
const can = (rules: PolicyRule[], group: string, resource: string, verb: string): boolean => rules.some((r) => r.apiGroups.includes(group) && r.resources.includes(resource) && r.verbs.includes(verb));

describe('the rule set', () => {
  it("grants each namespace exactly its frameworks' kinds and Baton's own needs, never */*/*", () => {
    const { objects } = generateRbac({ frameworks, instances, serviceAccount: SA });
    const teamA = rulesOf(objects, 'Role', 'team-a');
    expect(can(teamA, 'apps', 'statefulsets', 'patch')).toBe(true);
    expect(can(teamA, '', 'configmaps', 'update')).toBe(true); // checkpoints
    expect(can(teamA, '', 'secrets', 'get')).toBe(true); // valuesFrom
    expect(can(teamA, '', 'events', 'create')).toBe(true);
    expect(can(teamA, '', 'pods', 'list')).toBe(true);
    expect(can(teamA, 'db.example.com', 'clusters', 'get')).toBe(false); // another namespace's framework
    expect(can(teamA, 'apps', 'daemonsets', 'get')).toBe(false); // no instance uses it
    expect(can(rulesOf(objects, 'Role', 'platform'), 'db.example.com', 'clusters', 'create')).toBe(true);
    const cluster = rulesOf(objects, 'ClusterRole');
    expect(can(cluster, 'apiextensions.k8s.io', 'customresourcedefinitions', 'create')).toBe(true);
    expect(can(cluster, 'rbac.authorization.k8s.io', 'clusterroles', 'patch')).toBe(true);
    expect(can(cluster, 'apps', 'statefulsets', 'get')).toBe(false);
    expect(can(cluster, '', 'namespaces', 'create')).toBe(true);
    const self = rulesOf(objects, 'Role', 'baton-system');
    expect(can(self, 'coordination.k8s.io', 'leases', 'update')).toBe(true);
    expect(JSON.stringify(objects)).not.toContain('"*"');
    expect(objects.filter((o) => o.kind.endsWith('Binding')).every((b) => JSON.stringify(b.subjects) === JSON.stringify([{ kind: 'ServiceAccount', name: 'baton-agent', namespace: 'baton-system' }]))).toBe(true);
  });

  it('--cluster-wide puts namespaced kinds into the ClusterRole instead of per-namespace Roles', () => {
    const { objects } = generateRbac({ frameworks, instances, serviceAccount: SA, clusterWide: true });
    expect(objects.filter((o) => o.kind === 'Role').map((o) => o.metadata.namespace)).toEqual(['baton-system']);
    expect(can(rulesOf(objects, 'ClusterRole'), 'apps', 'statefulsets', 'patch')).toBe(true);
  });

  it('a kind neither built in nor declared by a rendered CRD is guessed and reported', () => {
    const { objects, warnings } = generateRbac({ frameworks: [{ name: 'm', version: '1.0.0', problems: [], objects: [obj('monitoring.example.com/v1', 'Probe')] }], instances: [{ file: 'instances/a/m.yaml', namespace: 'a', framework: 'm', version: '1.0.0' }], serviceAccount: SA });
    expect(can(rulesOf(objects, 'Role', 'a'), 'monitoring.example.com', 'probes', 'create')).toBe(true);
    expect(warnings[0]).toContain('resource name guessed as "probes"');
  });

  it('with tenants the agent only impersonates their accounts; --tenant prints what that account needs', () => {
    const tenants = [
      tenantSchema.parse({ name: 'team-a', instances: ['instances/team-a/*'], namespaces: ['team-a'], serviceAccount: { namespace: 'baton-system', name: 'tenant-team-a' } }),
      tenantSchema.parse({ name: 'platform', instances: ['instances/platform/*'], namespaces: ['platform'], kinds: ['*'], clusterKinds: ['*'], serviceAccount: { namespace: 'baton-system', name: 'tenant-platform' } }),
    ];
    const agent = generateRbac({ frameworks, instances, tenants, serviceAccount: SA }).objects;
    // The agent keeps its books (checkpoints, Events) in the tenants' namespaces; the objects are the tenants'.
    expect(agent.filter((o) => o.kind === 'Role').map((o) => o.metadata.namespace)).toEqual(['platform', 'team-a', 'baton-system']);
    expect(rulesOf(agent, 'Role', 'team-a')).toEqual([{ apiGroups: [''], resources: ['configmaps'], verbs: ['create', 'delete', 'get', 'update'] }, { apiGroups: [''], resources: ['events'], verbs: ['create'] }]);
    expect(rulesOf(agent, 'ClusterRole')).toContainEqual({ apiGroups: [''], resources: ['serviceaccounts'], verbs: ['impersonate'], resourceNames: ['tenant-platform', 'tenant-team-a'] });
    expect(can(rulesOf(agent, 'ClusterRole'), 'apiextensions.k8s.io', 'customresourcedefinitions', 'create')).toBe(false);
    const teamA = generateRbac({ frameworks, instances, tenants, tenant: 'team-a', serviceAccount: SA }).objects;
    expect(teamA.map((o) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`)).toEqual(['ClusterRole//baton-tenant-team-a', 'ClusterRoleBinding//baton-tenant-team-a', 'Namespace//team-a', 'Role/team-a/baton-tenant-team-a', 'RoleBinding/team-a/baton-tenant-team-a']);
    expect(rulesOf(teamA, 'ClusterRole')).toEqual([{ apiGroups: [''], resources: ['namespaces'], verbs: ['get'], resourceNames: ['team-a'] }]);
    expect(JSON.stringify(teamA.find((o) => o.kind === 'RoleBinding')?.subjects)).toContain('tenant-team-a');
    const tenantRole = rulesOf(teamA, 'Role', 'team-a');
    expect(can(tenantRole, 'apps', 'statefulsets', 'patch')).toBe(true);
    expect(can(tenantRole, '', 'configmaps', 'update')).toBe(true); // the redis framework renders ConfigMaps
    expect(can(tenantRole, '', 'events', 'create')).toBe(false); // Events are the agent's
    expect(() => generateRbac({ frameworks, instances, tenants, tenant: 'nobody', serviceAccount: SA })).toThrow('baton.yaml has no tenant nobody (tenants: team-a, platform)');
  });
});

describe('a repository made by baton init (repo-template and the catalog)', () => {
  let renderer: Renderer;
  let dir: string;
  beforeAll(async () => {
    renderer = new Renderer();
    dir = join(mkdtempSync(join(tmpdir(), 'baton-rbac-')), 'repo');
    expect((await runCli(['init', dir])).code).toBe(0);
  });
  afterAll(async () => {
    await renderer.close();
    rmSync(dirname(dir), { recursive: true, force: true });
  });

  it('renders its frameworks and grants what their plans create', async () => {
    const { objects, warnings } = await rbacFor(new DirectoryTree(dir), renderer, { serviceAccount: SA });
    expect(warnings).toEqual([]);
    const roles = objects.filter((o) => o.kind === 'Role' && o.metadata.namespace !== 'baton-system');
    expect(roles.length).toBeGreaterThan(0);
    for (const r of roles) expect(can(r.rules as PolicyRule[], 'apps', 'statefulsets', 'patch') || can(r.rules as PolicyRule[], 'apps', 'deployments', 'patch')).toBe(true);
  });

  it('deploy/rbac.yaml is its current output (regenerate: baton init /tmp/r && baton rbac --repo /tmp/r > deploy/rbac.yaml)', async () => {
    const out = await runCli(['rbac', '--repo', dir]);
    expect(out.code).toBe(0);
    expect(readFileSync('deploy/rbac.yaml', 'utf8')).toBe(out.stdout);
  });

  it('warns about an instance whose framework version is not in the repository', () => {
    const { warnings } = generateRbac({ frameworks: [], instances: [{ file: 'instances/a/x.yaml', namespace: 'a', framework: 'ghost', version: '1.0.0' }], serviceAccount: SA });
    expect(warnings).toContain('framework ghost 1.0.0 (used by instances/a/x.yaml) is not in the repository: its kinds are missing');
  });
});
