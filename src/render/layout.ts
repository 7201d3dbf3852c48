/**
 * The repository layout: which files are instances and plan requests. ONE decision for `baton validate`,
 * the agent's change detection (sync/scan.ts) and previews, so they can never disagree about a file.
 *
 * - `instances/<namespace>/<name>.yaml` and `.yml` are instance files; the same name with both
 *   extensions is INSTANCE_DUPLICATE (an error on each file: the instance is refused, nothing runs and
 *   nothing is deleted for it until one file is left).
 * - `requests/<namespace>/<name>.yaml` are plan requests (`baton plan trigger` writes them); `.yml` there is
 *   REQUEST_PATH.
 * - A symbolic link is never followed (in Git it is a blob holding a path; on disk it could point
 *   anywhere): INSTANCE_SYMLINK / REQUEST_SYMLINK, and the instance it names is refused.
 * - A folder inside a namespace folder, and a YAML file directly under instances/ or requests/, are
 *   INSTANCE_PATH / REQUEST_PATH errors (they are not read).
 * - Any other file there is an INSTANCE_FILE_IGNORED warning, except hidden files (`.gitkeep`), which are
 *   ignored.
 */
import { problem, type Problem } from './problems.js';
import type { FileTree, TreeEntry } from './tree.js';

export interface LayoutFile {
  /** Repository path of the file. */
  file: string;
  namespace: string;
  name: string;
  /** Errors that refuse this instance (or request): duplicate, symbolic link. */
  problems: Problem[];
}

export interface RepositoryLayout {
  /** One entry per instance (namespace/name), sorted by file. */
  instances: LayoutFile[];
  /** One entry per request file, sorted by file. */
  requests: LayoutFile[];
  /** Problems of files that name no instance (misplaced, nested folders, ignored files). */
  problems: Problem[];
}

const YAML = /\.ya?ml$/;

interface Kind {
  root: 'instances' | 'requests';
  accepts: RegExp;
  codes: { path: string; symlink: string; duplicate: string };
  expected: string;
}

const INSTANCES: Kind = {
  root: 'instances',
  accepts: /^(.+)\.ya?ml$/,
  codes: { path: 'INSTANCE_PATH', symlink: 'INSTANCE_SYMLINK', duplicate: 'INSTANCE_DUPLICATE' },
  expected: 'instances/<namespace>/<instance>.yaml (or .yml)',
};
const REQUESTS: Kind = {
  root: 'requests',
  accepts: /^(.+)\.yaml$/,
  codes: { path: 'REQUEST_PATH', symlink: 'REQUEST_SYMLINK', duplicate: 'REQUEST_DUPLICATE' },
  expected: 'requests/<namespace>/<instance>.yaml',
};

export async function scanLayout(tree: FileTree): Promise<RepositoryLayout> {
  const problems: Problem[] = [];
  const instances = await scanKind(tree, INSTANCES, problems);
  const requests = await scanKind(tree, REQUESTS, problems);
  return { instances, requests, problems };
}

async function scanKind(tree: FileTree, kind: Kind, problems: Problem[]): Promise<LayoutFile[]> {
  const byKey = new Map<string, LayoutFile[]>();
  for (const top of await tree.list(kind.root)) {
    const path = `${kind.root}/${top.name}`;
    if (top.type === 'dir') {
      for (const entry of await tree.list(path)) collect(kind, path, top.name, entry, byKey, problems);
    } else misplaced(kind, path, top, problems);
  }
  const out: LayoutFile[] = [];
  for (const files of byKey.values()) {
    if (files.length > 1) {
      for (const f of files) {
        const others = files.filter((o) => o !== f).map((o) => o.file).join(', ');
        f.problems.push(problem({ code: kind.codes.duplicate, file: f.file, message: `${f.file} and ${others} both define ${kind.root === 'instances' ? 'instance' : 'the request of'} ${f.namespace}/${f.name}: keep one file (nothing runs for it meanwhile)` }));
      }
    }
    // The first file stands for the key; every file's problems refuse it.
    out.push({ ...files[0]!, problems: files.flatMap((f) => f.problems) });
  }
  return out.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
}

function collect(kind: Kind, dir: string, namespace: string, entry: TreeEntry, byKey: Map<string, LayoutFile[]>, problems: Problem[]): void {
  const file = `${dir}/${entry.name}`;
  if (entry.type === 'dir') {
    problems.push(problem({ code: kind.codes.path, file: `${file}/`, message: `${file}/ is a folder inside a namespace folder: its files are not read (expected ${kind.expected})` }));
    return;
  }
  const m = kind.accepts.exec(entry.name);
  if (!m) {
    if (entry.name.startsWith('.')) return;
    if (YAML.test(entry.name)) problems.push(problem({ code: kind.codes.path, file, message: `${file} is not read: ${kind.root} files are ${kind.expected}` }));
    else problems.push(problem({ code: 'INSTANCE_FILE_IGNORED', severity: 'warning', file, message: `${file} is ignored: only ${kind.expected} files are read here` }));
    return;
  }
  const name = m[1]!;
  const ref: LayoutFile = { file, namespace, name, problems: [] };
  if (entry.type === 'symlink') {
    ref.problems.push(problem({ code: kind.codes.symlink, file, message: `${file} is a symbolic link: links are never followed; commit the file itself` }));
  }
  const key = `${namespace}/${name}`;
  byKey.set(key, [...(byKey.get(key) ?? []), ref]);
}

function misplaced(kind: Kind, path: string, entry: TreeEntry, problems: Problem[]): void {
  if (entry.type === 'symlink') {
    problems.push(problem({ code: kind.codes.symlink, file: path, message: `${path} is a symbolic link: links are never followed (expected ${kind.expected})` }));
  } else if (YAML.test(entry.name)) {
    problems.push(problem({ code: kind.codes.path, file: path, message: `${path} is not read: it must be in a namespace folder, ${kind.expected}` }));
  } else if (!entry.name.startsWith('.')) {
    problems.push(problem({ code: 'INSTANCE_FILE_IGNORED', severity: 'warning', file: path, message: `${path} is ignored: only ${kind.expected} files are read here` }));
  }
}
