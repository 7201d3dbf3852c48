/**
 * The renderer's FileTree interface over isomorphic-git: files as they are at one exact commit of the
 * agent's bare clone, never a working tree. `id(path)` returns the blob or tree oid, so callers cache
 * renders by content: an unchanged instance file or framework directory has the same id at any commit.
 */
import * as fs from 'node:fs';
import { join } from 'node:path';
import git from 'isomorphic-git';
import { GitObjectError } from './errors.js';
import { objectFs, type ObjectFs } from './object-fs.js';

export interface TreeEntry {
  name: string;
  type: 'file' | 'dir' | 'symlink';
}

/** The shape the renderer reads repositories through (src/render FileTree); `id` is the Git oid. */
export interface GitFileTree {
  read(path: string): Promise<Uint8Array | undefined>;
  list(dir: string): Promise<TreeEntry[]>;
  id(path: string): Promise<string | undefined>;
}

interface RawEntry { mode: string; path: string; oid: string; type: 'blob' | 'tree' | 'commit' }

/**
 * Object access to one bare repository with ONE isomorphic-git cache shared by every reader
 * (DEPENDENCIES.md: 53 ms -> 1.6 ms per blob), plus a memo of parsed trees by oid (trees are immutable).
 */
/**
 * Tree entries the memo holds at most (about 100 bytes each): bounded by entries, not trees, because
 * every status commit writes new directory trees as large as a namespace folder; at 10,000 instances
 * a count of trees alone let it grow to hundreds of MiB. The least recently used trees go first.
 */
export const TREE_MEMO_ENTRIES = 100_000;

/**
 * Bytes of blobs the blob memo holds at most. Every run of an instance reads its framework's files
 * (framework.yaml, params, templates) again; through isomorphic-git each read of a packed blob costs
 * a stat, a directory listing and a failed open before it reaches the pack (17% of an agent's CPU at
 * 1,000 instances). Blobs are immutable: the same bytes serve every run.
 */
export const BLOB_MEMO_BYTES = 4 * 1024 * 1024;
/** Larger blobs are not kept (one would crowd out every framework). */
const BLOB_MEMO_LARGEST = 256 * 1024;

export class ObjectStore {
  readonly gitdir: string;
  /**
   * isomorphic-git's cache: it keeps every pack file's index, and the whole pack once an object is read
   * from it, for as long as the cache lives. Each fetch of other shard members' status commits adds a
   * pack, so one cache for the agent's lifetime grew with every poll; a new one starts whenever the
   * packs on disk changed (checked by at(), once per pass and per run).
   */
  private packCache: object = {};
  private packList: string | undefined;
  /** Parsed trees by oid, least recently used first (Map order). */
  private readonly trees = new Map<string, RawEntry[]>();
  private treeEntries = 0;
  /** Blobs by oid, least recently used first (Map order), at most BLOB_MEMO_BYTES in all. */
  private readonly blobs = new Map<string, Uint8Array>();
  private blobBytes = 0;
  /** Root trees of commits written through this store (status commits build on each other). */
  private readonly commitTrees = new Map<string, string>();

  /** isomorphic-git's file system for this clone (see object-fs.ts). */
  readonly fs: ObjectFs;

  constructor(gitdir: string) {
    this.gitdir = gitdir;
    this.fs = objectFs(gitdir);
  }

  get cache(): object {
    return this.packCache;
  }

  /** Starts a new isomorphic-git cache if pack files came or went since the last look. */
  private notePacks(): void {
    let list: string;
    try {
      list = fs.readdirSync(join(this.gitdir, 'objects', 'pack')).filter((f) => f.endsWith('.idx')).sort().join('\n');
    } catch {
      list = '';
    }
    if (this.packList !== undefined && list !== this.packList) this.packCache = {};
    this.packList = list;
  }

  async treeOfCommit(commit: string): Promise<string> {
    const known = this.commitTrees.get(commit);
    if (known !== undefined) return known;
    const { commit: c } = await git.readCommit({ fs: this.fs, gitdir: this.gitdir, oid: commit, cache: this.cache });
    return c.tree;
  }

  /** A tree just written: its entries need not be read back (sorted as readTree returns them). */
  rememberTree(oid: string, entries: readonly RawEntry[]): void {
    this.memo(oid, [...entries].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)));
  }

  /** Entries the tree memo holds now (never more than TREE_MEMO_ENTRIES, but for one larger tree). */
  get memoEntries(): number {
    return this.treeEntries;
  }

  private memo(oid: string, entries: RawEntry[]): void {
    const old = this.trees.get(oid);
    if (old !== undefined) {
      this.trees.delete(oid);
      this.treeEntries -= old.length;
    }
    this.trees.set(oid, entries);
    this.treeEntries += entries.length;
    for (const [key, list] of this.trees) {
      if (this.treeEntries <= TREE_MEMO_ENTRIES || key === oid) break;
      this.trees.delete(key);
      this.treeEntries -= list.length;
    }
  }

  /** A commit just written and its root tree. */
  rememberCommit(commit: string, tree: string): void {
    if (this.commitTrees.size > 10_000) this.commitTrees.clear();
    this.commitTrees.set(commit, tree);
  }

  async readTree(oid: string): Promise<RawEntry[]> {
    const known = this.trees.get(oid);
    if (known) {
      // Most recently used now: moved to the end of the Map's order.
      this.trees.delete(oid);
      this.trees.set(oid, known);
      return known;
    }
    const { tree } = await git.readTree({ fs: this.fs, gitdir: this.gitdir, oid, cache: this.cache });
    const entries = tree.map((e) => ({ mode: e.mode, path: e.path, oid: e.oid, type: e.type }));
    this.memo(oid, entries);
    return entries;
  }

  /** A blob's bytes; callers must not change them (they are shared through the blob memo). */
  async readBlob(oid: string): Promise<Uint8Array> {
    const known = this.blobs.get(oid);
    if (known !== undefined) {
      this.blobs.delete(oid);
      this.blobs.set(oid, known);
      return known;
    }
    const { blob } = await git.readBlob({ fs: this.fs, gitdir: this.gitdir, oid, cache: this.cache });
    if (blob.byteLength <= BLOB_MEMO_LARGEST) {
      this.blobs.set(oid, blob);
      this.blobBytes += blob.byteLength;
      for (const [key, bytes] of this.blobs) {
        if (this.blobBytes <= BLOB_MEMO_BYTES) break;
        this.blobs.delete(key);
        this.blobBytes -= bytes.byteLength;
      }
    }
    return blob;
  }

  /** Bytes the blob memo holds now (never more than BLOB_MEMO_BYTES). */
  get memoBlobBytes(): number {
    return this.blobBytes;
  }

  /** The entry at `path` below tree `root` (`''` is the root itself), or undefined. */
  async entryAt(root: string, path: string): Promise<{ oid: string; type: 'blob' | 'tree' } | undefined> {
    const parts = splitPath(path);
    let current: { oid: string; type: 'blob' | 'tree' } = { oid: root, type: 'tree' };
    for (const part of parts) {
      if (current.type !== 'tree') return undefined;
      const entries = await this.readTree(current.oid);
      const next = entries.find((e) => e.path === part);
      if (!next || next.type === 'commit') return undefined;
      current = { oid: next.oid, type: next.type };
    }
    return current;
  }

  /** A FileTree of the files at `commit`. */
  async at(commit: string): Promise<CommitTree> {
    this.notePacks();
    return new CommitTree(this, commit, await this.treeOfCommit(commit));
  }
}

export class CommitTree implements GitFileTree {
  constructor(private readonly store: ObjectStore, readonly commit: string, readonly rootTree: string) {}

  async read(path: string): Promise<Uint8Array | undefined> {
    const entry = await this.store.entryAt(this.rootTree, path);
    if (!entry) return undefined;
    if (entry.type !== 'blob') throw new GitObjectError(`${path} is a directory at commit ${this.commit.slice(0, 12)}, not a file`, { path, commit: this.commit });
    return this.store.readBlob(entry.oid);
  }

  async readText(path: string): Promise<string | undefined> {
    const bytes = await this.read(path);
    return bytes === undefined ? undefined : new TextDecoder().decode(bytes);
  }

  async list(dir: string): Promise<TreeEntry[]> {
    const entry = await this.store.entryAt(this.rootTree, dir);
    if (entry?.type !== 'tree') return [];
    const entries = await this.store.readTree(entry.oid);
    // Mode 120000 is a symbolic link: listed as one, so the repository loader refuses it instead of reading the link text.
    return entries.filter((e) => e.type !== 'commit').map((e) => ({ name: e.path, type: e.type === 'tree' ? 'dir' : e.mode === '120000' ? 'symlink' : 'file' }));
  }

  async id(path: string): Promise<string | undefined> {
    return (await this.store.entryAt(this.rootTree, path))?.oid;
  }
}

export function splitPath(path: string): string[] {
  return path.split('/').filter((p) => p !== '' && p !== '.');
}
