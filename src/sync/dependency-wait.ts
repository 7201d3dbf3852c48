/**
 * `dependsOn` in the agent: before any plan of an instance runs (not a removal), each instance it
 * depends on must have applied its desired state at this commit and be healthy. While one is not, the
 * instance's status says what it waits on (a `waiting` transition, written once per distinct reason)
 * and its desired state is not recorded as seen, so the next poll looks again.
 */
import { dependencyKey, dependencyState, instanceFileOf, keyOf, type DependencyState } from '../compose/index.js';
import { loadInstanceSource, type InstanceSource } from '../plans/instance-source.js';
import type { InstanceRunDeps, InstanceRunInput } from './instance-run.js';
import type { Fingerprint, InstanceKey, WaitingStatus } from './status-file.js';
import type { KubeClient } from '../kube/client.js';
import type { FileTree, FrameworkCache, Renderer } from '../render/index.js';
import type { ValuesContext } from '../secrets/instance-values.js';
import type { StatusReporter } from './status-reporter.js';
import type { RunOutcome } from './instance-run.js';

export type NotReady = Extract<DependencyState, { ready: false }>;

/** What looking at an instance's dependencies needs: the agent passes its own, `baton apply` a directory. */
export interface DependencyLookup {
  client: KubeClient;
  renderer: Renderer;
  /** The agent's framework versions by tree id; absent (`baton apply`, a directory): loaded each time. */
  frameworks?: FrameworkCache;
  /** The repository at the commit (the agent) or on disk (`baton apply`): the dependencies' files. */
  tree: FileTree;
  now: () => Date;
  valuesFor?: (key: InstanceKey) => ValuesContext | undefined;
  /** The client reading an instance's own cluster (the agent with several clusters); default `client`. */
  readerFor?: (key: InstanceKey) => KubeClient | undefined;
}

/** The dependencies of the instance that are not ready, in the order its file lists them. */
export async function notReadyDependencies(lookup: DependencyLookup, source: InstanceSource): Promise<NotReady[]> {
  const out: NotReady[] = [];
  const self = { namespace: source.instance.namespace, name: source.instance.name };
  for (const d of source.instance.decl.dependsOn) {
    const key = dependencyKey(self, d);
    const file = await instanceFileOf(lookup.tree, key);
    if (file === undefined) {
      out.push({ ready: false, instance: keyOf(key), reason: 'it does not exist' });
      continue;
    }
    const values = lookup.valuesFor?.(key);
    // The dependency's desired state as its file reads now; its generated values are only read.
    const load = (): Promise<InstanceSource> => loadInstanceSource(lookup.tree, file, lookup.renderer, {}, { values: { ...values, generatedReadOnly: true }, ...(lookup.frameworks ? { frameworks: lookup.frameworks } : {}) });
    // Read in the dependency's own cluster (docs/clusters.md).
    const state = await dependencyState(lookup.readerFor?.(key) ?? lookup.client, key, load, lookup.now());
    if (!state.ready) out.push(state);
  }
  return out;
}

/** The agent's look at one instance's dependencies at the commit it runs. */
export async function dependenciesNotReady(deps: InstanceRunDeps, input: InstanceRunInput, source: InstanceSource): Promise<NotReady[]> {
  // A removal never waits.
  if (input.desired === undefined) return [];
  return notReadyDependencies({ client: deps.client, renderer: deps.renderer, frameworks: deps.frameworks, tree: input.tree, now: () => new Date(deps.now()), ...(deps.valuesFor ? { valuesFor: deps.valuesFor } : {}), ...(deps.readerFor ? { readerFor: deps.readerFor } : {}) }, source);
}

export function waitingStatus(waits: readonly NotReady[], since: string): WaitingStatus {
  return { on: waits.map((w) => ({ instance: w.instance, reason: w.reason })), since, message: waitingMessage(waits) };
}

export function waitingMessage(waits: readonly NotReady[]): string {
  return waits.map((w) => `${w.instance}: ${w.reason}`).join('; ');
}

/** A plan waits for dependencies: written once per distinct reason (each poll asks again, Git hears of changes only). */
function reportWaiting(deps: InstanceRunDeps, input: InstanceRunInput, reporter: StatusReporter, waits: readonly NotReady[]): RunOutcome {
  const message = `waiting for ${waitingMessage(waits)}`;
  const previous = deps.records.get(input.key) ?? input.previous;
  if (previous?.waiting?.message !== waitingMessage(waits) || previous.sourceCommit !== input.commit) {
    const state = reporter.checkpoint?.active?.state.status ?? 'PENDING';
    const since = previous?.waiting && previous.sourceCommit === input.commit ? previous.waiting.since : deps.now();
    reporter.write({ ...reporter.transition('waiting', state), message: waitingMessage(waits) }, { waiting: waitingStatus(waits, since) });
  }
  return { kind: 'nothing', message };
}


/** While waiting, the status keeps what it recorded as seen before, so the next poll looks again. */
export function heldFingerprint(input: Pick<InstanceRunInput, 'previous'>): Fingerprint {
  return input.previous?.observed ?? { instance: '' };
}

/** Records the wait and returns its outcome when a dependency is not ready; undefined when the run may go on. `hold` is told first. */
export async function holdForDependencies(deps: InstanceRunDeps, input: InstanceRunInput, reporter: StatusReporter, source: InstanceSource, hold: () => void): Promise<RunOutcome | undefined> {
  const waits = await dependenciesNotReady(deps, input, source);
  if (waits.length === 0) return undefined;
  hold();
  return reportWaiting(deps, input, reporter, waits);
}
