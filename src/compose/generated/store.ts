/**
 * Where generated values live: one Secret per instance, `baton-generated-<instance>` in its namespace,
 * one entry per parameter. It is created the first time a value is needed and written again only when
 * a parameter is added (a new framework version declaring another generated parameter) or rotated, so
 * values are stable across updates and upgrades. Labels and the owner annotation mark it as the
 * instance's; the plan engine deletes it when the instance is removed (after its objects).
 *
 * A rotation is named by the run that asked for it (a request or schedule id), recorded in an
 * annotation: loading the same request again (a resumed run, a later poll) does not rotate twice.
 */
import type { KubeClient } from '../../kube/client.js';
import { KubeApiError } from '../../kube/errors.js';
import { isRecord, type KubeObject, type ObjectRef } from '../../kube/object.js';
import { ANNOTATION_OWNER, LABEL_INSTANCE, LABEL_MANAGED_BY, MANAGED_BY_VALUE, labelValue, ownerValue } from '../../render/labels.js';
import { ensureNamespace } from '../../plans/namespace.js';
import { errorMessage } from '../../errors.js';
import { ComposeError } from '../errors.js';

const PREFIX = 'baton-generated-';
/** The ids of the rotations already done (newest first, at most ROTATIONS_KEPT). */
export const ANNOTATION_ROTATIONS = 'baton.dev/rotations';
const ROTATIONS_KEPT = 20;
const FIELD_MANAGER = 'baton';

export interface InstanceRef {
  namespace: string;
  name: string;
}

export function generatedSecretRef(instance: InstanceRef): ObjectRef {
  return { apiVersion: 'v1', kind: 'Secret', namespace: instance.namespace, name: `${PREFIX}${instance.name}` };
}

export interface StoredGenerated {
  values: Map<string, string>;
  rotations: string[];
  /** The Secret as read; undefined when it does not exist yet. */
  object: KubeObject | undefined;
}

export async function readGenerated(client: KubeClient, instance: InstanceRef): Promise<StoredGenerated> {
  const ref = generatedSecretRef(instance);
  let obj: KubeObject | undefined;
  try {
    obj = await client.get(ref);
  } catch (err) {
    throw new ComposeError('GENERATED_UNREACHABLE', `Secret ${ref.namespace}/${ref.name} (generated values) could not be read: ${errorMessage(err)}`);
  }
  const values = new Map<string, string>();
  if (obj === undefined) return { values, rotations: [], object: undefined };
  for (const [k, v] of Object.entries(isRecord(obj.data) ? obj.data : {})) if (typeof v === 'string') values.set(k, Buffer.from(v, 'base64').toString('utf8'));
  let rotations: string[] = [];
  try {
    const parsed: unknown = JSON.parse(obj.metadata.annotations?.[ANNOTATION_ROTATIONS] ?? '[]');
    if (Array.isArray(parsed)) rotations = parsed.filter((x): x is string => typeof x === 'string');
  } catch {
    rotations = [];
  }
  return { values, rotations, object: obj };
}

/** Writes the instance's generated values (create, or update guarded by the read resourceVersion). */
export async function writeGenerated(client: KubeClient, instance: InstanceRef, stored: StoredGenerated, values: Map<string, string>, rotations: string[]): Promise<void> {
  const ref = generatedSecretRef(instance);
  const body: KubeObject = {
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'Opaque',
    metadata: {
      name: ref.name,
      namespace: instance.namespace,
      labels: { [LABEL_MANAGED_BY]: MANAGED_BY_VALUE, [LABEL_INSTANCE]: labelValue(instance.name), 'baton.dev/generated': 'true' },
      annotations: { [ANNOTATION_OWNER]: ownerValue(instance), [ANNOTATION_ROTATIONS]: JSON.stringify(rotations.slice(0, ROTATIONS_KEPT)) },
      ...(stored.object?.metadata.resourceVersion !== undefined ? { resourceVersion: stored.object.metadata.resourceVersion } : {}),
    },
    data: Object.fromEntries([...values].sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => [k, Buffer.from(v, 'utf8').toString('base64')])),
  };
  try {
    if (stored.object === undefined) {
      await ensureNamespace(client, instance.namespace);
      await client.create(body, { fieldManager: FIELD_MANAGER });
    } else {
      await client.update(body, { fieldManager: FIELD_MANAGER });
    }
  } catch (err) {
    // Another process wrote it first: the caller reads again and uses what is there.
    if (err instanceof KubeApiError && err.status === 409) throw new ComposeError('GENERATED_CONFLICT', `Secret ${ref.namespace}/${ref.name} changed while generated values were written`);
    throw new ComposeError('GENERATED_UNREACHABLE', `Secret ${ref.namespace}/${ref.name} (generated values) could not be written: ${errorMessage(err)}`);
  }
}
