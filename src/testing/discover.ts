/**
 * Which framework versions a `baton test PATH` means: a framework version folder, a framework folder
 * (all its versions) or a whole repository (every framework version).
 */
import { listFrameworks, type FileTree } from '../render/index.js';

export interface FrameworkVersion {
  name: string;
  version: string;
}

/** `rel` is the path relative to the repository root ('' for the root). */
export async function frameworksAt(tree: FileTree, rel: string): Promise<FrameworkVersion[] | string> {
  const parts = rel.split('/').filter((p) => p !== '' && p !== '.');
  const all = await listFrameworks(tree);
  if (parts.length === 0) return all;
  if (parts[0] !== 'frameworks' || parts.length > 3) return `${rel} is not a repository, frameworks/<name> or frameworks/<name>/<version> folder`;
  const [, name, version] = parts;
  const matching = all.filter((f) => (name === undefined || f.name === name) && (version === undefined || f.version === version));
  return matching.length > 0 ? matching : `no framework version at ${rel}`;
}
