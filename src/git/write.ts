/**
 * Commits without a working tree: new blobs, trees and commits are written straight into the bare
 * clone (loose-object.ts; signed commits through isomorphic-git), on top of a given parent. Only the changed paths' trees are rewritten, so the cost
 * of a status commit does not grow with the size or history of the repository.
 */
import git from 'isomorphic-git';
import { splitPath, type ObjectStore } from './tree.js';
import { commitBody, treeBody, writeLooseObject } from './loose-object.js';

export interface Identity {
  name: string;
  email: string;
}

/** Path -> new content, or `null` to delete. */
export type FileChanges = ReadonlyMap<string, Uint8Array | null>;

interface TreeItem { mode: string; path: string; oid: string; type: 'blob' | 'tree' | 'commit' }

/** Writes `changes` onto tree `base` (undefined: an empty tree) and returns the new root tree oid. */
export async function writeTreeWith(store: ObjectStore, base: string | undefined, changes: FileChanges): Promise<string> {
  return (await writeTreeEntries(store, base, changes)).oid;
}

async function writeTreeEntries(store: ObjectStore, base: string | undefined, changes: FileChanges): Promise<{ oid: string; entries: TreeItem[] }> {
  const nested = new Map<string, Map<string, Uint8Array | null>>();
  const here = new Map<string, Uint8Array | null>();
  for (const [path, content] of changes) {
    const [head, ...rest] = splitPath(path);
    if (head === undefined) continue;
    if (rest.length === 0) { here.set(head, content); continue; }
    const sub = nested.get(head) ?? new Map<string, Uint8Array | null>();
    sub.set(rest.join('/'), content);
    nested.set(head, sub);
  }
  const entries: TreeItem[] = base ? [...(await store.readTree(base))] : [];
  const byName = new Map(entries.map((e) => [e.path, e]));
  for (const [name, content] of here) {
    if (content === null) { byName.delete(name); continue; }
    const oid = writeLooseObject(store.gitdir, 'blob', content);
    byName.set(name, { mode: '100644', path: name, oid, type: 'blob' });
  }
  for (const [name, sub] of nested) {
    const existing = byName.get(name);
    const subTree = await writeTreeEntries(store, existing?.type === 'tree' ? existing.oid : undefined, sub);
    if (subTree.entries.length === 0) byName.delete(name);
    else byName.set(name, { mode: '040000', path: name, oid: subTree.oid, type: 'tree' });
  }
  const tree = [...byName.values()];
  const oid = writeLooseObject(store.gitdir, 'tree', treeBody(tree));
  // The next status commit builds on this tree: spare it reading the tree back from disk.
  store.rememberTree(oid, tree);
  return { oid, entries: tree };
}

export interface CommitInput {
  tree: string;
  parents: string[];
  message: string;
  author: Identity;
  /** Seconds since the epoch; defaults to now. */
  timestamp?: number;
  /** Optional signer: receives the commit payload, returns an ASCII-armoured signature. */
  sign?: (payload: string) => Promise<string>;
}

/** Writes a commit object (no ref is moved) and returns its oid. */
export async function writeCommit(store: ObjectStore, input: CommitInput): Promise<string> {
  const who = { name: input.author.name, email: input.author.email, timestamp: input.timestamp ?? Math.floor(Date.now() / 1000), timezoneOffset: 0 };
  const message = input.message.endsWith('\n') ? input.message : `${input.message}\n`;
  if (input.sign) {
    const sign = input.sign;
    const oid = await git.commit({
      fs: store.fs, gitdir: store.gitdir, cache: store.cache, message, author: who, committer: who, tree: input.tree, parent: input.parents,
      noUpdateBranch: true, signingKey: 'baton', onSign: async ({ payload }) => ({ signature: await sign(payload) }),
    });
    store.rememberCommit(oid, input.tree);
    return oid;
  }
  const oid = writeLooseObject(store.gitdir, 'commit', commitBody({ tree: input.tree, parents: input.parents, author: who, committer: who, message }));
  store.rememberCommit(oid, input.tree);
  return oid;
}
