/**
 * Locating a repository on disk from a path a user typed: an instance file, a framework version folder
 * or a folder inside a repository. Used by the CLI only (the library reads through FileTree).
 */
import { existsSync, statSync } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import type { ValidateScope } from './validate.js';

function looksLikeRepo(dir: string): boolean {
  return existsSync(join(dir, 'baton.yaml')) || existsSync(join(dir, 'frameworks')) || existsSync(join(dir, 'instances'));
}

/** The repository root containing `path`: `instances/<ns>/<file>` three levels up, else the nearest folder that looks like one. */
export function findRepoRoot(path: string): string | undefined {
  const abs = resolve(path);
  const nsDir = dirname(abs);
  if (basename(dirname(nsDir)) === 'instances' && !isDir(abs)) return dirname(dirname(nsDir));
  for (let dir = isDir(abs) ? abs : dirname(abs); ; dir = dirname(dir)) {
    if (looksLikeRepo(dir) && !existsSync(join(dir, 'framework.yaml'))) return dir;
    if (dirname(dir) === dir) return undefined;
  }
}

function isDir(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

export function treePath(root: string, path: string): string {
  return relative(root, resolve(path)).split(sep).join('/');
}

/** What `baton validate PATH` checks: the repository, one framework version, or one instance. */
export function scopeOf(root: string, path: string): ValidateScope | string {
  const rel = treePath(root, path);
  if (rel === '' || rel === '.') return { kind: 'repository' };
  if (!isDir(path)) {
    return /^instances\/[^/]+\/[^/]+\.ya?ml$/.test(rel) ? { kind: 'instance', file: rel } : `${rel} is neither a repository, a framework version folder nor an instance file`;
  }
  const fw = /^frameworks\/([^/]+)\/([^/]+)$/.exec(rel);
  if (fw) return { kind: 'framework', name: fw[1]!, version: fw[2]! };
  const all = /^frameworks\/([^/]+)$/.exec(rel);
  if (all) return { kind: 'frameworkVersions', name: all[1]! };
  return `${rel} is neither a repository, a framework folder (frameworks/<name> or frameworks/<name>/<version>) nor an instance file`;
}
