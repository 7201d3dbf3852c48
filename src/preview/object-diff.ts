/**
 * Compares rendered objects: what a step creates, changes (a unified diff of the YAML) or leaves alone,
 * and what the instance would no longer own. Annotations that only say which plan/step rendered an
 * object are ignored, or every plan would show every object as changed.
 */
import { createTwoFilesPatch } from 'diff';
import jsYaml from 'js-yaml';
import { type KubeObject, type ObjectRef, refKey, refLabel, refOf } from '../kube/object.js';
import type { ObjectChange } from './types.js';

/** Annotations whose value depends on the plan that rendered the object, not on the object. */
const VOLATILE_ANNOTATIONS = ['baton.dev/plan', 'baton.dev/phase', 'baton.dev/step'];

export type Masker = (text: string) => string;

export function toComparableYaml(obj: KubeObject, mask: Masker): string {
  const copy = structuredClone(obj);
  const annotations = copy.metadata.annotations;
  if (annotations) {
    for (const key of VOLATILE_ANNOTATIONS) delete annotations[key];
    if (Object.keys(annotations).length === 0) delete copy.metadata.annotations;
  }
  return mask(jsYaml.dump(copy, { noRefs: true, lineWidth: -1, sortKeys: false }));
}

export function diffObject(before: KubeObject | undefined, after: KubeObject, mask: Masker): ObjectChange {
  const ref = refOf(after);
  const afterYaml = toComparableYaml(after, mask);
  if (!before) return { change: 'create', ref, yaml: afterYaml };
  const beforeYaml = toComparableYaml(before, mask);
  if (beforeYaml === afterYaml) return { change: 'unchanged', ref };
  return { change: 'update', ref, diff: unifiedDiff(refLabel(ref), beforeYaml, afterYaml) };
}

export function unifiedDiff(label: string, before: string, after: string): string {
  const patch = createTwoFilesPatch(`a/${label}`, `b/${label}`, before, after, '', '', { context: 3 });
  // Drop the "Index:"/"===" preamble jsdiff writes; keep ---/+++ and hunks.
  return patch.split('\n').filter((l) => !l.startsWith('Index:') && !/^=+$/.test(l)).join('\n');
}

/** Objects owned before and not rendered any more: what pruning would delete. */
export function prunedRefs(before: Iterable<KubeObject>, after: Iterable<KubeObject>): ObjectRef[] {
  const kept = new Set<string>();
  for (const obj of after) kept.add(refKey(refOf(obj)));
  const out: ObjectRef[] = [];
  for (const obj of before) {
    const ref = refOf(obj);
    if (!kept.has(refKey(ref))) out.push(ref);
  }
  return out.sort((a, b) => refKey(a).localeCompare(refKey(b)));
}

export function indexByRef(objects: Iterable<KubeObject>): Map<string, KubeObject> {
  const map = new Map<string, KubeObject>();
  for (const obj of objects) map.set(refKey(refOf(obj)), obj);
  return map;
}
