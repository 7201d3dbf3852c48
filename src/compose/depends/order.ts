/**
 * The order in which instances of one change run when some depend on others: dependencies first
 * (Kahn's algorithm, ties by name so the order is stable), each with the instances it waits for.
 * Instances on a cycle (refused elsewhere) come last, in name order. Pure.
 */
import { loadInstance } from '../../render/repository.js';
import type { FileTree } from '../../render/tree.js';
import { dependencyKey, keyOf, type InstanceKeyRef } from './graph.js';

export interface OrderedInstance {
  instance: string;
  /** Dependencies of it (whether or not they change too). */
  waitsFor: string[];
}

export function dependencyOrder(nodes: ReadonlyMap<string, readonly string[]>): OrderedInstance[] {
  const pending = new Map([...nodes].map(([id, deps]) => [id, new Set(deps.filter((d) => nodes.has(d) && d !== id))]));
  const out: OrderedInstance[] = [];
  for (;;) {
    const ready = [...pending].filter(([, deps]) => deps.size === 0).map(([id]) => id).sort();
    if (ready.length === 0) break;
    for (const id of ready) {
      pending.delete(id);
      for (const deps of pending.values()) deps.delete(id);
      out.push({ instance: id, waitsFor: [...(nodes.get(id) ?? [])] });
    }
  }
  for (const id of [...pending.keys()].sort()) out.push({ instance: id, waitsFor: [...(nodes.get(id) ?? [])] });
  return out;
}

/** The run order of the given instance files at this tree; undefined when none of them has dependsOn. */
export async function orderOfFiles(tree: FileTree, files: readonly string[]): Promise<OrderedInstance[] | undefined> {
  const nodes = new Map<string, string[]>();
  let any = false;
  for (const file of files) {
    const loaded = await loadInstance(tree, file);
    if (!loaded.ok) continue;
    const self: InstanceKeyRef = { namespace: loaded.value.namespace, name: loaded.value.name };
    const deps = loaded.value.decl.dependsOn.map((d) => keyOf(dependencyKey(self, d)));
    any ||= deps.length > 0;
    nodes.set(keyOf(self), deps);
  }
  return any ? dependencyOrder(nodes) : undefined;
}
