/**
 * The checkpoint kept as a ConfigMap `baton-checkpoint-<instance>` in the instance's namespace, one
 * JSON document under `checkpoint.json`. Its resourceVersion is the optimistic-concurrency token.
 */
import type { KubeClient } from '../kube/client.js';
import { KubeApiError } from '../kube/errors.js';
import { isRecord, type KubeObject, type ObjectRef } from '../kube/object.js';
import {
  CHECKPOINT_FORMAT,
  CheckpointConflictError,
  CheckpointCorruptError,
  type Checkpoint,
  type CheckpointStore,
  type InstanceKey,
  type StoredCheckpoint,
} from './checkpoint.js';

export const CHECKPOINT_KEY = 'checkpoint.json';

export function checkpointRef(instance: InstanceKey): ObjectRef {
  return { apiVersion: 'v1', kind: 'ConfigMap', namespace: instance.namespace, name: `${CHECKPOINT_PREFIX}${instance.name}` };
}

/** The label every checkpoint ConfigMap carries, so one list finds them all (drift sweeps). */
export const CHECKPOINT_LABEL = 'baton.dev/checkpoint';
const CHECKPOINT_PREFIX = 'baton-checkpoint-';

/** The instance a checkpoint ConfigMap belongs to, from its name; undefined for any other object. */
export function instanceOfCheckpoint(cm: KubeObject): InstanceKey | undefined {
  const name = cm.metadata.name ?? '';
  const namespace = cm.metadata.namespace;
  if (!name.startsWith(CHECKPOINT_PREFIX) || namespace === undefined) return undefined;
  return { namespace, name: name.slice(CHECKPOINT_PREFIX.length) };
}

/** Reads a checkpoint ConfigMap (from a get or a list); a broken one is CHECKPOINT_CORRUPT naming it. */
export function parseCheckpointConfigMap(cm: KubeObject, instance: InstanceKey): StoredCheckpoint {
  const ref = checkpointRef(instance);
  const where = `ConfigMap ${ref.namespace}/${ref.name}`;
  const data = cm['data'];
  const text = isRecord(data) ? data[CHECKPOINT_KEY] : undefined;
  if (typeof text !== 'string') throw new CheckpointCorruptError(instance, where, `no ${CHECKPOINT_KEY} key`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new CheckpointCorruptError(instance, where, `invalid JSON (${(err as Error).message})`);
  }
  if (!isRecord(parsed) || parsed['format'] !== CHECKPOINT_FORMAT || !Array.isArray(parsed['inventory'])) {
    throw new CheckpointCorruptError(instance, where, `expected format ${CHECKPOINT_FORMAT} with an inventory`);
  }
  return { checkpoint: parsed as unknown as Checkpoint, version: cm.metadata.resourceVersion ?? '' };
}

export class ConfigMapCheckpointStore implements CheckpointStore {
  constructor(private readonly client: KubeClient) {}

  async load(instance: InstanceKey): Promise<StoredCheckpoint | undefined> {
    const cm = await this.client.get(checkpointRef(instance));
    return cm === undefined ? undefined : parseCheckpointConfigMap(cm, instance);
  }

  async save(checkpoint: Checkpoint, version: string | undefined): Promise<string> {
    const ref = checkpointRef(checkpoint.instance);
    const body: KubeObject = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: ref.name,
        namespace: checkpoint.instance.namespace,
        labels: {
          'app.kubernetes.io/managed-by': 'baton',
          'app.kubernetes.io/instance': checkpoint.instance.name,
          [CHECKPOINT_LABEL]: 'true',
        },
        ...(version !== undefined ? { resourceVersion: version } : {}),
      },
      data: { [CHECKPOINT_KEY]: JSON.stringify(checkpoint) },
    };
    try {
      const saved = version === undefined ? await this.client.create(body, { fieldManager: 'baton' }) : await this.client.update(body, { fieldManager: 'baton' });
      return saved.metadata.resourceVersion ?? '';
    } catch (err) {
      // Conflict on update (stale resourceVersion) or AlreadyExists on create: another process advanced it.
      if (err instanceof KubeApiError && (err.status === 409 || err.reason === 'AlreadyExists')) {
        throw new CheckpointConflictError(checkpoint.instance, err);
      }
      throw err;
    }
  }

  async remove(instance: InstanceKey): Promise<void> {
    await this.client.delete(checkpointRef(instance));
  }
}
