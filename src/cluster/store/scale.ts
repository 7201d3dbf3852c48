/** The `scale` subresource: an `autoscaling/v1` Scale view of an object's replica fields. */
import type { KubeObject } from '../../kube/object.js';
import { isRecord } from '../../kube/object.js';
import { storageKey, type Core } from './core.js';
import { ApiError, badRequest, cause, invalid, notFound, staleConflict } from './errors.js';
import { labelSelectorString } from './selectors.js';
import type { ResourceType, ScaleObject, WriteOptions } from './types.js';
import { clone, getPath, setPath } from './util.js';
import { replaceObject } from './write.js';

function scaleOf(type: ResourceType): NonNullable<ResourceType['subresources']['scale']> {
  const scale = type.subresources.scale;
  if (!scale) throw new ApiError(404, 'NotFound', 'the server could not find the requested resource');
  return scale;
}

function find(core: Core, type: ResourceType, namespace: string | undefined, name: string): KubeObject {
  const obj = core.find(storageKey(type), type.namespaced ? namespace ?? 'default' : '', name);
  if (!obj) throw notFound(type, name);
  return obj;
}

export function scaleView(type: ResourceType, obj: KubeObject): ScaleObject {
  const paths = scaleOf(type);
  const replicas = getPath(obj, paths.specReplicasPath);
  const statusReplicas = getPath(obj, paths.statusReplicasPath);
  const selector = type.schema === undefined ? labelSelectorString(getPath(obj, '.spec.selector')) : getPath(obj, paths.labelSelectorPath ?? '');
  const m = obj.metadata;
  const meta: ScaleObject['metadata'] = { name: m.name ?? '', uid: m.uid ?? '', resourceVersion: m.resourceVersion ?? '', creationTimestamp: m.creationTimestamp ?? '' };
  if (m.namespace !== undefined) meta.namespace = m.namespace;
  const status: NonNullable<ScaleObject['status']> = { replicas: typeof statusReplicas === 'number' ? statusReplicas : 0 };
  if (typeof selector === 'string' && selector !== '') status.selector = selector;
  return { kind: 'Scale', apiVersion: 'autoscaling/v1', metadata: meta, spec: typeof replicas === 'number' ? { replicas } : {}, status };
}

export function getScale(core: Core, type: ResourceType, namespace: string | undefined, name: string): ScaleObject {
  scaleOf(type);
  return scaleView(type, find(core, type, namespace, name));
}

export function updateScale(core: Core, type: ResourceType, namespace: string | undefined, name: string, body: unknown, opts: WriteOptions): ScaleObject {
  const paths = scaleOf(type);
  const live = find(core, type, namespace, name);
  if (!isRecord(body)) throw badRequest('the body of the request was not a Scale object');
  const meta = isRecord(body.metadata) ? body.metadata : {};
  if (typeof meta.resourceVersion === 'string' && meta.resourceVersion !== '' && meta.resourceVersion !== live.metadata.resourceVersion) {
    throw staleConflict(type, name);
  }
  const replicas = isRecord(body.spec) ? body.spec.replicas : undefined;
  if (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 0) {
    throw invalid({ group: 'autoscaling', kind: 'Scale' }, name, [cause.invalid('spec.replicas', replicas, 'must be greater than or equal to 0')]);
  }
  const next = clone(live);
  setPath(next, paths.specReplicasPath, replicas);
  const { subresource: _ignored, ...rest } = opts as WriteOptions & { subresource?: string };
  return scaleView(type, replaceObject(core, type, live, next, rest));
}
