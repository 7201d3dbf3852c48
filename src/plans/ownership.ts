/**
 * Field ownership: how Baton's server-side applies treat fields another field manager owns, and the
 * per-object opt-outs. Git wins by default: a field the framework renders is applied with
 * `force=true`, as Flux and Argo CD do with server-side apply, so a `kubectl scale` never blocks
 * later updates. Fields the framework does not render are never sent, so they stay with whoever set
 * them (an autoscaler's replicas when the template omits `replicas`).
 *
 * Per object, in the rendered manifest (docs/drift.md has examples):
 *   baton.dev/apply: IfNotPresent       create the object when it is absent, never update it
 *   baton.dev/conflicts: Force          take conflicting fields (the default)
 *   baton.dev/conflicts: Report         never take fields from other managers: apply the rest and
 *                                       report the fields left to others as drift
 *   baton.dev/conflicts: Fail           fail the step FIELD_CONFLICT (what Baton always did before)
 *   baton.dev/drift: Ignore             drift detection leaves the object alone
 * A task's `force: true` (the only way to take fields before) is now the default and still accepted;
 * `force: false` on a task means `Fail` for its objects. An object's annotation wins over its task.
 */
import { BatonError } from '../errors.js';
import { isRecord, refLabel, refOf, type KubeObject } from '../kube/object.js';
import { parseOwnership, type ConflictPolicy } from '../render/ownership-annotations.js';

export { ANNOTATION_APPLY, ANNOTATION_CONFLICTS, ANNOTATION_DRIFT, type ConflictPolicy } from '../render/ownership-annotations.js';

export interface ApplyPolicy {
  /** `if-absent`: created when missing, never updated (drift ignores its fields, not its absence). */
  create: 'always' | 'if-absent';
  conflicts: ConflictPolicy;
  /** `ignore`: drift detection skips the object entirely. */
  drift: 'check' | 'ignore';
}

/** What a task says about conflicts: `force: true` (force), `force: false` (fail), or nothing. */
export type TaskForce = boolean | undefined;

export class OwnershipAnnotationError extends BatonError {
  constructor(object: string, annotation: string, value: string, expected: readonly string[]) {
    super('OWNERSHIP_ANNOTATION_INVALID', `${object}: annotation ${annotation}: expected ${expected.join(' or ')}, got ${JSON.stringify(value)}`, { object, annotation });
  }
}

/** The policy of one rendered object (rendering already refused bad annotation values). */
export function applyPolicyOf(obj: KubeObject, taskForce: TaskForce = undefined): ApplyPolicy {
  const parsed = parseOwnership(obj.metadata.annotations);
  if (!parsed.ok) throw new OwnershipAnnotationError(refLabel(refOf(obj)), parsed.annotation, parsed.value, parsed.expected);
  const a = parsed.value;
  return {
    create: a.ifNotPresent ? 'if-absent' : 'always',
    conflicts: a.conflicts ?? (taskForce === false ? 'fail' : 'force'),
    drift: a.driftIgnored ? 'ignore' : 'check',
  };
}

/** A field of a rendered object another manager owns with a different value. */
export interface FieldConflict {
  /** As the API server prints it: `.spec.replicas`, `.spec.template.spec.containers[name="web"].image`. */
  field: string;
  manager: string;
}

/**
 * A copy of `obj` without the given fields (conflict paths as the API server prints them), so that a
 * non-forced apply sends only what nobody else owns. `undefined` when a path cannot be found in the
 * object (then the caller fails the apply instead of guessing).
 */
export function withoutFields(obj: KubeObject, fields: readonly string[]): KubeObject | undefined {
  const copy = structuredClone(obj);
  for (const field of fields) {
    if (!removePath(copy, field)) return undefined;
  }
  return copy;
}

/** Removes one printed path from `root`; false when it does not resolve. */
function removePath(root: Record<string, unknown>, path: string): boolean {
  let cur: unknown = root;
  let rest = path;
  let parent: { holder: Record<string, unknown> | unknown[]; key: string | number } | undefined;
  while (rest !== '') {
    if (rest.startsWith('.') && isRecord(cur)) {
      const key = longestKey(cur, rest.slice(1));
      if (key === undefined) return false;
      parent = { holder: cur, key };
      cur = cur[key];
      rest = rest.slice(1 + key.length);
    } else if (rest.startsWith('[') && Array.isArray(cur)) {
      const end = closingBracket(rest);
      if (end < 0) return false;
      const index = findElement(cur, rest.slice(1, end));
      if (index < 0) return false;
      parent = { holder: cur, key: index };
      cur = cur[index];
      rest = rest.slice(end + 1);
    } else return false;
  }
  if (parent === undefined) return false;
  if (Array.isArray(parent.holder)) parent.holder.splice(parent.key as number, 1);
  else delete parent.holder[parent.key as string];
  return true;
}

/** Map keys may contain dots (`app.kubernetes.io/name`): the longest key the path continues with wins. */
function longestKey(obj: Record<string, unknown>, rest: string): string | undefined {
  let best: string | undefined;
  for (const key of Object.keys(obj)) {
    if (!rest.startsWith(key)) continue;
    const next = rest.charAt(key.length);
    if (next !== '' && next !== '.' && next !== '[') continue;
    if (best === undefined || key.length > best.length) best = key;
  }
  return best;
}

/** The index of the `]` closing the selector at the start of `text`, skipping quoted strings. */
function closingBracket(text: string): number {
  let quoted = false;
  for (let i = 1; i < text.length; i++) {
    const c = text[i];
    if (c === '\\' && quoted) i++;
    else if (c === '"') quoted = !quoted;
    else if (c === ']' && !quoted) return i;
  }
  return -1;
}

/** `name="web"`, `containerPort=80,protocol="TCP"` (keyed lists), `="value"` (sets) or `3` (an index). */
function findElement(list: unknown[], selector: string): number {
  if (/^\d+$/.test(selector)) return Number(selector) < list.length ? Number(selector) : -1;
  if (selector.startsWith('=')) {
    const want = parseValue(selector.slice(1));
    return list.findIndex((item) => JSON.stringify(item) === JSON.stringify(want));
  }
  const pairs = splitPairs(selector);
  if (pairs === undefined) return -1;
  return list.findIndex((item) => isRecord(item) && pairs.every(([k, v]) => item[k] === v || (k === 'protocol' && item[k] === undefined && v === 'TCP')));
}

function splitPairs(selector: string): [string, unknown][] | undefined {
  const out: [string, unknown][] = [];
  const re = /([A-Za-z0-9_.-]+)=("(?:[^"\\]|\\.)*"|[^,]*)(?:,|$)/gy;
  let m: RegExpExecArray | null;
  let consumed = 0;
  while (consumed < selector.length && (m = re.exec(selector)) !== null) {
    out.push([m[1] ?? '', parseValue(m[2] ?? '')]);
    consumed = re.lastIndex;
  }
  return consumed === selector.length && out.length > 0 ? out : undefined;
}

function parseValue(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
