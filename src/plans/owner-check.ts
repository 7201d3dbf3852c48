/**
 * An object belongs to exactly one instance (docs/render.md, "Ownership"). Before a step applies, every
 * object it would apply is looked up: one that another instance owns (its `baton.dev/owner` annotation,
 * or for objects applied before that annotation existed, the instance label of a Baton-managed
 * namespaced object) refuses the step with OBJECT_OWNED_BY_OTHER_INSTANCE, naming the owner, before
 * anything of the step is applied. Namespaces are shared by the instances that live in them and are
 * not checked.
 */
import type { KubeClient } from '../kube/client.js';
import { refKey, refLabel, refOf, type KubeObject } from '../kube/object.js';
import { BatonError } from '../errors.js';
import { KubeApiError } from '../kube/errors.js';
import { ANNOTATION_OWNER, LABEL_INSTANCE, ownerOfLive } from '../render/labels.js';
import type { BatchAction } from '../render/types.js';
import { forEachLimited } from './pool.js';

export class ObjectOwnedError extends BatonError {
  constructor(object: string, owner: string, instance: string) {
    super(
      'OBJECT_OWNED_BY_OTHER_INSTANCE',
      `${object} belongs to instance ${owner}: instance ${instance} may not apply it (an object belongs to exactly one instance; rename it in one of them)`,
      { object, owner, instance },
    );
  }
}

/** Kinds several instances legitimately apply: the namespace they share. */
const SHARED_KINDS = new Set(['Namespace']);

/**
 * Throws ObjectOwnedError for the first object of `actions` that another instance owns. Returns the
 * objects (`refKey`) found absent: the step's apply creates them (the readiness wait knows that their
 * pods can only come after it).
 */
export async function checkOwnership(client: KubeClient, actions: readonly BatchAction[], owner: string, concurrency: number): Promise<Set<string>> {
  const objects = actions.filter((a) => a.action === 'apply' && !SHARED_KINDS.has(a.object.kind)).map((a) => a.object);
  let conflict: ObjectOwnedError | undefined;
  const absent = new Set<string>();
  await forEachLimited(objects, concurrency, async (obj: KubeObject) => {
    if (conflict) return;
    let live: KubeObject | undefined;
    try {
      live = await client.get(refOf(obj));
    } catch (err) {
      // A custom resource whose CRD the same step creates: its kind is not served yet, so nothing owns it.
      if (err instanceof KubeApiError && err.status === 404) return;
      throw err;
    }
    if (live === undefined) absent.add(refKey(refOf(obj)));
    const current = live === undefined ? undefined : ownerOfLive(live.metadata);
    if (current !== undefined && current !== owner) conflict ??= new ObjectOwnedError(refLabel(refOf(obj)), current, owner);
  });
  if (conflict) throw conflict;
  return absent;
}

/**
 * The other instance a live object belongs to, if any: pruning and removal skip it. More cautious than
 * the apply check: an instance label from any manager counts (never delete what might be someone's).
 */
export function ownedByOther(live: KubeObject, owner: string): string | undefined {
  const label = live.metadata.labels?.[LABEL_INSTANCE];
  const current = ownerOfLive(live.metadata) ?? (label !== undefined ? `${live.metadata.namespace ?? ''}/${label}` : undefined);
  if (current === undefined || current === owner) return undefined;
  // Before the owner annotation, a cluster-scoped object carried only the instance name.
  if (live.metadata.annotations?.[ANNOTATION_OWNER] === undefined && live.metadata.namespace === undefined && label === owner.split('/')[1]) return undefined;
  return current;
}
