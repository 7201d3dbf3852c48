/**
 * The narrow read interface the renderer loads a repository through, so the same code reads a working
 * directory (DirectoryTree), an in-memory fixture (MemoryTree) or a Git tree at a commit (the Git agent's
 * implementation). Paths are POSIX, relative to the repository root, without a leading slash.
 */
import { readFile, readdir } from 'node:fs/promises';
import { join, posix } from 'node:path';

export interface TreeEntry {
  name: string;
  /** A symbolic link is listed as such and never followed (repository layout rules: docs/render.md). */
  type: 'file' | 'dir' | 'symlink';
}

export interface FileTree {
  /** The file's bytes, or undefined when there is no such file. */
  read(path: string): Promise<Uint8Array | undefined>;
  /** The entries of a directory, sorted by name; [] when there is no such directory. */
  list(dir: string): Promise<TreeEntry[]>;
  /** A content identity (e.g. Git blob oid) for caching; absent when the tree has none. */
  id?(path: string): Promise<string | undefined>;
}

/** Normalises a repository path and refuses anything that leaves the root. */
export function normalizeTreePath(path: string): string {
  const norm = posix.normalize(path.replace(/\\/g, '/')).replace(/^\.\/?/, '').replace(/\/$/, '');
  if (norm.startsWith('/') || norm === '..' || norm.startsWith('../')) {
    throw new Error(`path ${JSON.stringify(path)} leaves the repository`);
  }
  return norm === '.' ? '' : norm;
}

function byName(a: TreeEntry, b: TreeEntry): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/** A FileTree over a directory on disk. */
export class DirectoryTree implements FileTree {
  constructor(readonly root: string) {}

  async read(path: string): Promise<Uint8Array | undefined> {
    try {
      return await readFile(join(this.root, normalizeTreePath(path)));
    } catch (err) {
      if (isMissing(err)) return undefined;
      throw err;
    }
  }

  async list(dir: string): Promise<TreeEntry[]> {
    try {
      const entries = await readdir(join(this.root, normalizeTreePath(dir)), { withFileTypes: true });
      return entries
        .filter((e) => e.isFile() || e.isDirectory() || e.isSymbolicLink())
        .map((e): TreeEntry => ({ name: e.name, type: e.isSymbolicLink() ? 'symlink' : e.isDirectory() ? 'dir' : 'file' }))
        .sort(byName);
    } catch (err) {
      if (isMissing(err)) return [];
      throw err;
    }
  }
}

function isMissing(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR';
}

/** A FileTree over a map of path -> content: fixtures, tests, previews of uncommitted changes. */
export class MemoryTree implements FileTree {
  private readonly files = new Map<string, Uint8Array>();
  private readonly links = new Set<string>();

  constructor(files: Record<string, string | Uint8Array> = {}) {
    for (const [path, content] of Object.entries(files)) this.set(path, content);
  }

  set(path: string, content: string | Uint8Array): this {
    this.files.set(normalizeTreePath(path), typeof content === 'string' ? new TextEncoder().encode(content) : content);
    return this;
  }

  delete(path: string): this {
    this.files.delete(normalizeTreePath(path));
    this.links.delete(normalizeTreePath(path));
    return this;
  }

  /** A symbolic link at `path` (as Git stores one: its content is the target path). */
  symlink(path: string, target: string): this {
    this.set(path, target);
    this.links.add(normalizeTreePath(path));
    return this;
  }

  async read(path: string): Promise<Uint8Array | undefined> {
    return this.files.get(normalizeTreePath(path));
  }

  async list(dir: string): Promise<TreeEntry[]> {
    const prefix = normalizeTreePath(dir);
    const seen = new Map<string, TreeEntry>();
    for (const path of this.files.keys()) {
      if (prefix !== '' && !path.startsWith(`${prefix}/`)) continue;
      const rest = prefix === '' ? path : path.slice(prefix.length + 1);
      const slash = rest.indexOf('/');
      const name = slash < 0 ? rest : rest.slice(0, slash);
      if (!seen.has(name)) seen.set(name, { name, type: slash >= 0 ? 'dir' : this.links.has(path) ? 'symlink' : 'file' });
    }
    return [...seen.values()].sort(byName);
  }
}

export async function readText(tree: FileTree, path: string): Promise<string | undefined> {
  const bytes = await tree.read(path);
  return bytes === undefined ? undefined : new TextDecoder('utf-8').decode(bytes);
}
