/**
 * `baton rbac`: the least-privilege Roles and ClusterRoles the agent (or a tenant's ServiceAccount)
 * needs for the frameworks a repository uses. `rbacFor` loads and renders; `generateRbac` is the pure rule set.
 */
import { loadSettings, type FileTree, type Renderer } from '../render/index.js';
import { frameworkObjects, instanceUses } from './collect.js';
import { generateRbac, type RbacInput, type RbacOutput } from './generate.js';

export { generateRbac, OBJECT_VERBS, toRules, type PolicyRule, type RbacInput, type RbacOutput } from './generate.js';
export { frameworkObjects, instanceUses, type FrameworkObjects, type InstanceUse } from './collect.js';
export { resourceOf, crdResources } from './resources.js';

export async function rbacFor(tree: FileTree, renderer: Renderer, options: Omit<RbacInput, 'frameworks' | 'instances' | 'tenants'>): Promise<RbacOutput> {
  const settings = await loadSettings(tree);
  const instances = await instanceUses(tree);
  const frameworks = await frameworkObjects(tree, renderer, new Set(instances.map((i) => `${i.framework}@${i.version}`)));
  const tenants = settings.ok ? settings.value.decl.tenants : undefined;
  return generateRbac({ ...options, frameworks, instances, ...(tenants ? { tenants } : {}) });
}
