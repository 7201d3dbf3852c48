/**
 * `dependsOn` as a graph over the instance files of one commit: each entry must name an instance that
 * exists, no chain of dependencies may lead back to the instance, and with tenants in baton.yaml a
 * dependency in another namespace must be one the instance's tenant may reach (its own tenant's
 * instance, or a namespace its tenant lists). Problems are located at the `dependsOn` entry. Pure over
 * the FileTree: `baton validate`, previews and the agent ask the same question.
 */
import { problem, type Problem } from '../../render/problems.js';
import type { Instance } from '../../render/model.js';
import { loadInstance } from '../../render/repository.js';
import type { DependencyDecl, TenantDecl } from '../../render/schemas.js';
import type { FileTree } from '../../render/tree.js';
import { matchesAny } from '../../tenancy/glob.js';
import { tenantOf } from '../../tenancy/rules.js';

export interface InstanceKeyRef {
  namespace: string;
  name: string;
}

export const keyOf = (k: InstanceKeyRef): string => `${k.namespace}/${k.name}`;

/** The instance a `dependsOn` entry names (same namespace unless given). */
export function dependencyKey(owner: InstanceKeyRef, d: DependencyDecl): InstanceKeyRef {
  return { namespace: d.namespace ?? owner.namespace, name: d.name };
}

/** The file of an instance at this tree (`.yaml`, else `.yml`), or undefined. */
export async function instanceFileOf(tree: FileTree, key: InstanceKeyRef): Promise<string | undefined> {
  const entries = await tree.list(`instances/${key.namespace}`);
  for (const ext of ['.yaml', '.yml']) if (entries.some((e) => e.type === 'file' && e.name === `${key.name}${ext}`)) return `instances/${key.namespace}/${key.name}${ext}`;
  return undefined;
}

/** The dependencies of each instance reached from `start`, loaded once each (unreadable files have none). */
class DependencyGraph {
  private readonly edges = new Map<string, InstanceKeyRef[]>();
  constructor(private readonly tree: FileTree) {}

  async of(key: InstanceKeyRef): Promise<InstanceKeyRef[]> {
    const id = keyOf(key);
    const known = this.edges.get(id);
    if (known) return known;
    const file = await instanceFileOf(this.tree, key);
    const loaded = file === undefined ? undefined : await loadInstance(this.tree, file);
    const deps = loaded?.ok === true ? loaded.value.decl.dependsOn.map((d) => dependencyKey(key, d)) : [];
    this.edges.set(id, deps);
    return deps;
  }

  /** A path from `from` back to `target` through dependsOn edges (depth first), if there is one. */
  async pathTo(from: InstanceKeyRef, target: string, seen = new Set<string>()): Promise<string[] | undefined> {
    const id = keyOf(from);
    if (id === target) return [id];
    if (seen.has(id)) return undefined;
    seen.add(id);
    for (const next of await this.of(from)) {
      const rest = await this.pathTo(next, target, seen);
      if (rest) return [id, ...rest];
    }
    return undefined;
  }
}

export async function dependencyProblems(tree: FileTree, inst: Instance, tenants: readonly TenantDecl[] | undefined): Promise<Problem[]> {
  const out: Problem[] = [];
  const self = { namespace: inst.namespace, name: inst.name };
  const graph = new DependencyGraph(tree);
  const at = (i: number, field?: string): Pick<Problem, 'file' | 'path' | 'line' | 'column'> => {
    const path = field ? ['dependsOn', i, field] : ['dependsOn', i];
    return { file: inst.file, path, ...inst.source.locate(path) };
  };
  const seen = new Set<string>();
  for (const [i, d] of inst.decl.dependsOn.entries()) {
    const key = dependencyKey(self, d);
    const id = keyOf(key);
    if (seen.has(id)) {
      out.push(problem({ code: 'DEPENDENCY_DUPLICATE', severity: 'warning', ...at(i), message: `${id} is listed twice` }));
      continue;
    }
    seen.add(id);
    const file = await instanceFileOf(tree, key);
    if (file === undefined) {
      out.push(problem({ code: 'DEPENDENCY_MISSING', ...at(i, 'name'), message: `dependsOn names instance ${id}, which does not exist (no instances/${key.namespace}/${key.name}.yaml)` }));
      continue;
    }
    const forbidden = tenancyProblem(tenants, inst, key, file);
    if (forbidden) {
      out.push(problem({ code: 'DEPENDENCY_FORBIDDEN', ...at(i, d.namespace !== undefined ? 'namespace' : 'name'), message: forbidden }));
      continue;
    }
    const cycle = await graph.pathTo(key, keyOf(self));
    if (cycle) out.push(problem({ code: 'DEPENDENCY_CYCLE', ...at(i, 'name'), message: `dependsOn forms a cycle: ${[keyOf(self), ...cycle].join(' -> ')}` }));
  }
  return out;
}

/** Why the instance's tenant may not depend on `key`, or undefined when it may (or no tenants are configured). */
function tenancyProblem(tenants: readonly TenantDecl[] | undefined, inst: Instance, key: InstanceKeyRef, file: string): string | undefined {
  if (key.namespace === inst.namespace) return undefined;
  const mine = tenantOf(tenants, inst.file);
  if (mine.kind !== 'tenant') return undefined;
  const theirs = tenantOf(tenants, file);
  if (theirs.kind === 'tenant' && theirs.tenant.name === mine.tenant.name) return undefined;
  if (matchesAny(mine.tenant.namespaces, key.namespace)) return undefined;
  return `tenant ${mine.tenant.name} may not depend on ${keyOf(key)}: namespace ${key.namespace} is not among its namespaces (${mine.tenant.namespaces.join(', ')}) and the instance belongs to ${theirs.kind === 'tenant' ? `tenant ${theirs.tenant.name}` : 'no tenant of it'}`;
}
