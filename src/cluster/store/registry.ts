/**
 * Which resources are served. Built-ins are fixed; each CRD adds (and on deletion removes) one type per
 * served version. Discovery listens to `onChange` because kubectl must see CRDs come and go.
 */
import { builtinTypes } from './builtins.js';
import type { ResourceType } from './types.js';

export type RegistryListener = () => void;

export class ResourceRegistry {
  private readonly types = new Map<string, ResourceType>();
  private readonly byKind = new Map<string, ResourceType>();
  /** Types contributed by each CRD (by CRD name), so a CRD update or delete replaces exactly them. */
  private readonly fromCrd = new Map<string, ResourceType[]>();
  private readonly listeners = new Set<RegistryListener>();

  constructor() {
    for (const t of builtinTypes()) this.put(t);
  }

  /** Every served type, built-ins first, in a stable order. */
  all(): ResourceType[] {
    return [...this.types.values()];
  }

  lookup(group: string, version: string, resource: string): ResourceType | undefined {
    return this.types.get(`${group}/${version}/${resource}`);
  }

  lookupKind(group: string, version: string, kind: string): ResourceType | undefined {
    return this.byKind.get(`${group}/${version}/${kind}`);
  }

  /** The storage version's type for a group and resource: all versions share one storage. */
  storageType(group: string, resource: string): ResourceType | undefined {
    for (const t of this.types.values()) if (t.group === group && t.resource === resource && t.storage) return t;
    return undefined;
  }

  /** Subscribe to changes of the served set; returns the unsubscribe function. */
  onChange(listener: RegistryListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** @internal the store calls this when a CRD becomes established or changes. */
  setCrdTypes(crdName: string, types: ResourceType[]): void {
    for (const t of this.fromCrd.get(crdName) ?? []) this.remove(t);
    for (const t of types) this.put(t);
    if (types.length > 0) this.fromCrd.set(crdName, types);
    else this.fromCrd.delete(crdName);
    this.emit();
  }

  crdTypes(crdName: string): ResourceType[] {
    return this.fromCrd.get(crdName) ?? [];
  }

  private put(t: ResourceType): void {
    this.types.set(`${t.group}/${t.version}/${t.resource}`, t);
    this.byKind.set(`${t.group}/${t.version}/${t.kind}`, t);
  }

  private remove(t: ResourceType): void {
    this.types.delete(`${t.group}/${t.version}/${t.resource}`);
    this.byKind.delete(`${t.group}/${t.version}/${t.kind}`);
  }

  private emit(): void {
    for (const l of this.listeners) {
      try {
        l();
      } catch {
        // A failing listener must not break the write that changed the registry.
      }
    }
  }
}
