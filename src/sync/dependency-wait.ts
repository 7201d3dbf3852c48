/**
 * `dependsOn` in the agent: before any plan of an instance runs (not a removal), each instance it
 * depends on must have applied its desired state at this commit and be healthy. While one is not, the
 * instance's status says what it waits on (a `waiting` transition, written once per distinct reason)
 * and its desired state is not recorded as seen, so the next poll looks again.
 */
import { dependencyKey, dependencyState, instanceFileOf, keyOf, type DependencyState } from '../compose/index.js';
import { loadInstanceSource, type InstanceSource } from '../plans/instance-source.js';
import type { InstanceRunDeps, InstanceRunInput } from './instance-run.js';
import type { WaitingStatus } from './status-file.js';

export type NotReady = Extract<DependencyState, { ready: false }>;

/** The dependencies of the instance that are not ready, in the order its file lists them. */
export async function dependenciesNotReady(deps: InstanceRunDeps, input: InstanceRunInput, source: InstanceSource): Promise<NotReady[]> {
  const out: NotReady[] = [];
  // A removal never waits.
  if (input.desired === undefined) return out;
  const self = { namespace: source.instance.namespace, name: source.instance.name };
  for (const d of source.instance.decl.dependsOn) {
    const key = dependencyKey(self, d);
    const file = await instanceFileOf(input.tree, key);
    if (file === undefined) {
      out.push({ ready: false, instance: keyOf(key), reason: 'it does not exist' });
      continue;
    }
    const values = deps.valuesFor?.(key);
    // The dependency's desired state as its file reads at this commit; its generated values are only read.
    const load = (): Promise<InstanceSource> => loadInstanceSource(input.tree, file, deps.renderer, {}, { values: { ...values, generatedReadOnly: true } });
    const state = await dependencyState(deps.client, key, load, new Date(deps.now()));
    if (!state.ready) out.push(state);
  }
  return out;
}

export function waitingStatus(waits: readonly NotReady[], since: string): WaitingStatus {
  return { on: waits.map((w) => ({ instance: w.instance, reason: w.reason })), since, message: waitingMessage(waits) };
}

export function waitingMessage(waits: readonly NotReady[]): string {
  return waits.map((w) => `${w.instance}: ${w.reason}`).join('; ');
}
