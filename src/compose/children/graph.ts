/**
 * Instance tasks checked across frameworks, for `baton validate`: the child framework exists, a version
 * of it satisfies the task's range, and following Instance tasks from framework to framework (through
 * the versions the ranges choose) never comes back to the framework it started from. Located at the task.
 */
import type { Framework } from '../../render/model.js';
import { problem, type Problem } from '../../render/problems.js';
import { loadFramework } from '../../render/repository.js';
import type { FileTree } from '../../render/tree.js';
import { bestVersion, parseRange } from './range.js';

/** The versions of a framework in the repository (folder names). */
export async function frameworkVersions(tree: FileTree, name: string): Promise<string[]> {
  return (await tree.list(`frameworks/${name}`)).filter((e) => e.type === 'dir').map((e) => e.name);
}

/** The version an Instance task resolves to, or a message saying why there is none. */
export async function resolveChildVersion(tree: FileTree, framework: string, range: string): Promise<{ ok: true; version: string } | { ok: false; message: string }> {
  if (parseRange(range) === undefined) return { ok: false, message: `version range ${JSON.stringify(range)} does not parse (use 1.2.3, ^1.2.0, ~1.2.0 or comparators such as ">=1.0.0 <2.0.0")` };
  const versions = await frameworkVersions(tree, framework);
  if (versions.length === 0) return { ok: false, message: `framework "${framework}" does not exist under frameworks/` };
  const version = bestVersion(versions, range);
  return version === undefined ? { ok: false, message: `framework ${framework} has no version in ${range} (available: ${versions.join(', ')})` } : { ok: true, version };
}

export async function childTaskProblems(tree: FileTree, fw: Framework): Promise<Problem[]> {
  const out: Problem[] = [];
  const src = fw.frameworkSource;
  for (const [i, t] of fw.decl.tasks.entries()) {
    if (t.kind !== 'Instance') continue;
    const at = (field: string): Pick<Problem, 'file' | 'path' | 'line' | 'column'> => ({ file: src.file, path: ['tasks', i, field], ...src.locate(['tasks', i, field]) });
    const resolved = await resolveChildVersion(tree, t.framework, t.version);
    if (!resolved.ok) {
      out.push(problem({ code: 'CHILD_FRAMEWORK_UNKNOWN', ...at(resolved.message.startsWith('version range') ? 'version' : 'framework'), message: `Instance task ${t.name}: ${resolved.message}` }));
      continue;
    }
    const path = await cyclePath(tree, t.framework, resolved.version, fw.name, new Set());
    if (path) out.push(problem({ code: 'CHILD_CYCLE', ...at('framework'), message: `Instance task ${t.name}: frameworks would install each other forever: ${[fw.name, ...path].join(' -> ')}` }));
  }
  return out;
}

async function cyclePath(tree: FileTree, name: string, version: string, target: string, seen: Set<string>): Promise<string[] | undefined> {
  if (name === target) return [name];
  const id = `${name}@${version}`;
  if (seen.has(id)) return undefined;
  seen.add(id);
  const loaded = await loadFramework(tree, name, version);
  if (!loaded.ok) return undefined;
  for (const t of loaded.value.decl.tasks) {
    if (t.kind !== 'Instance') continue;
    const next = await resolveChildVersion(tree, t.framework, t.version);
    if (!next.ok) continue;
    const rest = await cyclePath(tree, t.framework, next.version, target, seen);
    if (rest) return [name, ...rest];
  }
  return undefined;
}
