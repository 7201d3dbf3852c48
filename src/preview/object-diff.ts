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
  return mask(plainYaml(obj));
}

function plainYaml(obj: KubeObject): string {
  const copy = structuredClone(obj);
  const annotations = copy.metadata.annotations;
  if (annotations) {
    for (const key of VOLATILE_ANNOTATIONS) delete annotations[key];
    if (Object.keys(annotations).length === 0) delete copy.metadata.annotations;
  }
  return jsYaml.dump(copy, { noRefs: true, lineWidth: -1, sortKeys: false });
}

/** Shown instead of a diff when only masked (sensitive) values differ, so the change is not hidden. */
export const SENSITIVE_ONLY = '(only sensitive values changed; they are masked)';

export function diffObject(before: KubeObject | undefined, after: KubeObject, mask: Masker): ObjectChange {
  const ref = refOf(after);
  const afterPlain = plainYaml(after);
  if (!before) return { change: 'create', ref, yaml: mask(afterPlain) };
  const beforePlain = plainYaml(before);
  // Compare unmasked text: a changed password must show as a change even though both sides print ***.
  if (beforePlain === afterPlain) return { change: 'unchanged', ref };
  const [beforeMasked, afterMasked] = [mask(beforePlain), mask(afterPlain)];
  if (beforeMasked === afterMasked) return { change: 'update', ref, diff: SENSITIVE_ONLY };
  return { change: 'update', ref, diff: unifiedDiff(refLabel(ref), beforeMasked, afterMasked) };
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
