/**
 * Change detection by content ids: the desired state at a commit is, per instance, the blob id of
 * its file, the tree id of its framework version directory and the blob id of a pending request.
 * Comparing with the ids the agent last acted on (kept in each status file) finds what changed
 * without rendering anything; the agent's own commits touch only status/ and so change no id.
 */
import { createHash } from 'node:crypto';
import { hasErrors, loadInstance, frameworkDir, scanLayout, type Problem, type ScheduleDecl, type SyncSettingsDecl } from '../render/index.js';
import type { ValuesFromDecl } from '../render/schemas.js';
import { normalizeTreePath } from '../render/tree.js';
import type { CommitTree } from '../git/tree.js';
import type { Fingerprint, InstanceKey } from './status-file.js';
import { requestPath } from './request-file.js';

export interface DesiredInstance {
  key: InstanceKey;
  file: string;
  fingerprint: Fingerprint;
  /** From the instance file; undefined when the file does not parse (the render reports why). */
  framework?: { name: string; version: string };
  schedules: ScheduleDecl[];
  /**
   * Layout errors that refuse this instance (two files for it, a symbolic link): the agent records a
   * refusal and runs and deletes nothing for it.
   */
  refusal?: Problem[];
  /** Secrets and ConfigMaps its values come from: the agent adds their versions to the fingerprint. */
  valuesFrom: ValuesFromDecl[];
  /** Blob ids of its values files (`missing` for one that does not exist). */
  valuesFileIds: string[];
  /** The instance file's `sync:` settings (drift interval, self-heal policy, retries). */
  sync?: SyncSettingsDecl;
  /** `suspend: true`: nothing is applied or repaired, schedules hold (docs/operations.md). */
  suspend?: boolean;
  /** `cluster:`: the target cluster's name in baton.yaml `clusters` (absent: the agent's own). */
  cluster?: string;
}

interface Parsed { framework?: { name: string; version: string }; schedules: ScheduleDecl[]; valuesFiles: string[]; valuesFrom: ValuesFromDecl[]; sync?: SyncSettingsDecl; suspend?: boolean; cluster?: string }

/** Parsed instance facts by blob id: an unchanged file is never parsed twice. */
export type ParseCache = Map<string, Parsed>;

/**
 * Entries the parse cache may hold beyond twice the instances of the last scan before the entries of
 * files no longer in it (earlier versions of edited instance files) are dropped: without a bound it
 * grew with every edit of every instance file for the agent's lifetime (issue #20).
 */
export const PARSE_CACHE_SLACK = 16;

/** Drops cached parses of blobs not in `current` when the cache has grown past its bound (see PARSE_CACHE_SLACK). */
export function pruneParseCache(cache: ParseCache, current: ReadonlySet<string>): void {
  if (cache.size <= 2 * current.size + PARSE_CACHE_SLACK) return;
  for (const blob of cache.keys()) if (!current.has(blob)) cache.delete(blob);
}

/**
 * The desired instances at a commit, by the repository layout rules (render/layout.ts, the same ones
 * `baton validate` applies). Problems of files that name no instance go to `onLayoutProblems`.
 */
export async function scanDesired(tree: CommitTree, cache: ParseCache, onLayoutProblems?: (problems: Problem[]) => void): Promise<Map<string, DesiredInstance>> {
  return (await scanScoped(tree, cache, undefined, onLayoutProblems)).desired;
}

/**
 * Which instances a scan keeps: a shard member's share (the instances it may act on, by
 * `namespace/name`). `version` changes whenever `keeps` may answer differently.
 */
export interface ScanScope {
  readonly version: number;
  keeps(id: string): boolean;
}

/**
 * The desired instances `scope` keeps (every one without a scope), and the names of all instances in
 * the tree. An instance outside the scope is named only: its file is neither looked up nor parsed, and
 * nothing of it is cached, so a shard member of a 10,000-instance repository holds the parsed state of
 * its own share only (issue #20).
 */
export async function scanScoped(tree: CommitTree, cache: ParseCache, scope: ScanScope | undefined, onLayoutProblems?: (problems: Problem[]) => void): Promise<{ desired: Map<string, DesiredInstance>; names: Set<string> }> {
  const out = new Map<string, DesiredInstance>();
  const names = new Set<string>();
  const blobs = new Set<string>();
  const layout = await scanLayout(tree);
  if (layout.problems.length > 0) onLayoutProblems?.(layout.problems);
  for (const ref of layout.instances) {
    const { file, namespace, name } = ref;
    const key = { namespace, name };
    const id = keyString(key);
    names.add(id);
    if (scope !== undefined && !scope.keeps(id)) continue;
    const blob = (await tree.id(file)) ?? '';
    blobs.add(blob);
    const refused = hasErrors(ref.problems);
    let parsed: Parsed | undefined = refused ? { schedules: [], valuesFiles: [], valuesFrom: [] } : cache.get(blob);
    if (parsed === undefined) {
      const inst = await loadInstance(tree, file);
      parsed = inst.ok
        ? { framework: { name: inst.value.decl.framework, version: inst.value.decl.version }, schedules: inst.value.decl.schedules, valuesFiles: inst.value.decl.valuesFiles, valuesFrom: inst.value.decl.valuesFrom, ...(inst.value.decl.sync ? { sync: inst.value.decl.sync } : {}), ...(inst.value.decl.suspend === true ? { suspend: true } : {}), ...(inst.value.decl.cluster !== undefined ? { cluster: inst.value.decl.cluster } : {}) }
        : { schedules: [], valuesFiles: [], valuesFrom: [] };
      cache.set(blob, parsed);
    }
    const framework = parsed.framework;
    const fwTree = framework ? await tree.id(frameworkDir(framework.name, framework.version)) : undefined;
    const request = await tree.id(requestPath(key));
    const valuesFileIds = await Promise.all(parsed.valuesFiles.map(async (f) => {
      try {
        return (await tree.id(normalizeTreePath(f))) ?? 'missing';
      } catch {
        return 'missing';
      }
    }));
    const values = valuesDigest(valuesFileIds, undefined);
    // A refused layout changes the fingerprint (every file of the key counts), so fixing it is a change.
    const instanceId = refused ? `${blob}+layout:${ref.problems.map((p) => p.code).join(',')}` : blob;
    const fingerprint: Fingerprint = { instance: instanceId, ...(fwTree ? { framework: fwTree } : {}), ...(request ? { request } : {}), ...(values ? { values } : {}) };
    out.set(id, { key, file, fingerprint, schedules: parsed.schedules, valuesFrom: parsed.valuesFrom, valuesFileIds, ...(framework ? { framework } : {}), ...(parsed.sync ? { sync: parsed.sync } : {}), ...(parsed.suspend ? { suspend: true } : {}), ...(parsed.cluster !== undefined ? { cluster: parsed.cluster } : {}), ...(refused ? { refusal: ref.problems } : {}) });
  }
  pruneParseCache(cache, blobs);
  return { desired: out, names };
}

/**
 * scanDesired with a memo of the last scan: a commit whose files outside `status/` are the same as
 * the last scanned one's (the root tree's other entries have the same ids) has the same desired
 * state, so it is not scanned again. Shard members' and the agent's own status commits move the
 * branch tip at every poll; rescanning 10,000 instance files for each took 1.4-2 s of CPU per poll.
 * Values files are read wherever they are, so an instance with one under `status/` turns the memo off.
 */
export class DesiredScan {
  private last: { key: string; desired: Map<string, DesiredInstance>; names: Set<string>; problems: Problem[] } | undefined;
  private lastNames: ReadonlySet<string> = new Set();

  constructor(private readonly cache: ParseCache) {}

  /** Every instance named in the tree of the last scan, in the scope or not. */
  get names(): ReadonlySet<string> {
    return this.lastNames;
  }

  /** The desired instances `scope` keeps (see scanScoped); every instance without a scope. */
  async at(tree: CommitTree, onLayoutProblems?: (problems: Problem[]) => void, scope?: ScanScope): Promise<Map<string, DesiredInstance>> {
    const entries = (await tree.list('')).filter((e) => e.name !== 'status');
    const ids = (await Promise.all(entries.map(async (e) => `${e.name}\0${(await tree.id(e.name)) ?? ''}`))).join('\n');
    // A new scope (a shard member's share changed) is a new scan: the instances it now keeps were not read.
    const memoKey = `${scope === undefined ? 'all' : `scope ${scope.version}`}\n${ids}`;
    if (this.last?.key === memoKey) {
      if (this.last.problems.length > 0) onLayoutProblems?.(this.last.problems);
      this.lastNames = this.last.names;
      // Copies: the agent adds cluster values to fingerprints in place.
      return new Map([...this.last.desired].map(([id, d]) => [id, { ...d }]));
    }
    let problems: Problem[] = [];
    const { desired, names } = await scanScoped(tree, this.cache, scope, (p) => { problems = p; onLayoutProblems?.(p); });
    this.lastNames = names;
    const readsStatus = [...desired.values()].some((d) => this.cache.get(d.fingerprint.instance)?.valuesFiles.some((f) => underStatus(f)) === true);
    this.last = readsStatus ? undefined : { key: memoKey, desired: new Map([...desired].map(([id, d]) => [id, { ...d }])), names, problems };
    return desired;
  }
}

function underStatus(file: string): boolean {
  try {
    return normalizeTreePath(file).startsWith('status/');
  } catch {
    return false;
  }
}

export const keyString = (k: InstanceKey): string => `${k.namespace}/${k.name}`;

/** The `values` part of a fingerprint: values files' blob ids and the valuesFrom objects' versions; undefined when there are none. */
export function valuesDigest(fileIds: readonly string[], clusterVersion: string | undefined): string | undefined {
  if (fileIds.length === 0 && clusterVersion === undefined) return undefined;
  return createHash('sha256').update(`${fileIds.join(',')}|${clusterVersion ?? ''}`).digest('hex').slice(0, 40);
}

export function sameFingerprint(a: Fingerprint | undefined, b: Fingerprint | undefined): boolean {
  return a !== undefined && b !== undefined && a.instance === b.instance && a.framework === b.framework && a.request === b.request && a.values === b.values;
}

/** Why an instance needs attention, for logs and the status message. */
export function changeReason(previous: Fingerprint | undefined, next: Fingerprint): string {
  if (previous === undefined) return 'new instance';
  const parts: string[] = [];
  if (previous.instance !== next.instance) parts.push('instance file changed');
  if (previous.framework !== next.framework) parts.push(previous.instance === next.instance ? 'framework files changed (affects every instance on this version)' : 'framework changed');
  if (previous.request !== next.request && next.request !== undefined) parts.push('plan requested');
  if (previous.values !== next.values && previous.instance === next.instance) parts.push('values files or valuesFrom objects changed');
  return parts.join(', ') || 'unchanged';
}
