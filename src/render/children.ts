/**
 * Instance tasks at render time: the task's template renders the child instance (its name and its
 * parameters, from the parent's values and pipes) as one document shaped like an instance file. A
 * template that renders nothing (only whitespace or comments) creates no child: a framework makes a child
 * optional this way (the catalog's kafka creates its ZooKeeper only with MODE=zookeeper). Pure.
 */
import { isRecord } from '../kube/object.js';
import { problem, type Problem } from './problems.js';
import type { TaskDecl } from './schemas.js';
import type { RenderedChild } from './types.js';
import { DNS1123_LABEL } from './versions.js';

type InstanceTask = Extract<TaskDecl, { kind: 'Instance' }>;

export function childOf(task: InstanceTask, docs: readonly unknown[], file: string, problems: Problem[]): RenderedChild | undefined {
  const bad = (message: string): undefined => void problems.push(problem({ code: 'CHILD_INVALID', file, message: `Instance task ${task.name}: ${message}` }));
  if (docs.length === 0) return undefined;
  if (docs.length !== 1) return bad(`its template must render exactly one document, or none for no child (got ${docs.length})`);
  const doc = docs[0];
  if (!isRecord(doc) || doc['apiVersion'] !== 'baton.dev/v1alpha1' || doc['kind'] !== 'Instance') return bad('its template must render {apiVersion: baton.dev/v1alpha1, kind: Instance, metadata: {name}, params}');
  const name = isRecord(doc['metadata']) ? doc['metadata']['name'] : undefined;
  if (typeof name !== 'string' || !DNS1123_LABEL.test(name) || name.length > 63) return bad(`metadata.name must be a DNS-1123 label, got ${JSON.stringify(name)}`);
  const params = doc['params'] ?? {};
  if (!isRecord(params)) return bad('params must be a map of parameter values');
  const extra = Object.keys(doc).filter((k) => !['apiVersion', 'kind', 'metadata', 'params'].includes(k));
  if (extra.length > 0) return bad(`unknown fields ${extra.join(', ')} (framework and version are set on the task)`);
  return { task: task.name, name, framework: task.framework, version: task.version, params: { ...params } };
}
