/**
 * Label selectors (equality and set-based: `a=b`, `a==b`, `a!=b`, `a in (x,y)`, `a notin (x)`, `a`, `!a`)
 * and field selectors (`metadata.name`, `metadata.namespace`, plus a few per-kind fields such as
 * `status.phase` and `spec.nodeName` for pods). Parse once per request, match per object.
 */
import type { KubeObject } from '../../kube/object.js';
import { isRecord } from '../../kube/object.js';
import { badRequest } from './errors.js';

type Requirement =
  | { op: 'eq' | 'neq'; key: string; value: string }
  | { op: 'in' | 'notin'; key: string; values: Set<string> }
  | { op: 'exists' | 'absent'; key: string };

export type Matcher = (obj: KubeObject) => boolean;

const matchAll: Matcher = () => true;

/** Splits on commas that are not inside parentheses. */
function splitTerms(selector: string): string[] {
  const terms: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < selector.length; i++) {
    const c = selector[i];
    if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === ',' && depth === 0) {
      terms.push(selector.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(selector.slice(start));
  return terms.map((t) => t.trim()).filter((t) => t !== '');
}

const SET_RE = /^([A-Za-z0-9_./-]+)\s+(in|notin)\s+\(([^)]*)\)$/;
const EQ_RE = /^([A-Za-z0-9_./-]+)\s*(==|=|!=)\s*([A-Za-z0-9_.-]*)$/;
const KEY_RE = /^(!?)\s*([A-Za-z0-9_./-]+)$/;

function parseTerm(term: string, selector: string): Requirement {
  const set = SET_RE.exec(term);
  if (set) {
    const values = new Set((set[3] ?? '').split(',').map((v) => v.trim()).filter((v) => v !== ''));
    return { op: set[2] === 'in' ? 'in' : 'notin', key: set[1] ?? '', values };
  }
  const eq = EQ_RE.exec(term);
  if (eq) return { op: eq[2] === '!=' ? 'neq' : 'eq', key: eq[1] ?? '', value: eq[3] ?? '' };
  const key = KEY_RE.exec(term);
  if (key) return { op: key[1] === '!' ? 'absent' : 'exists', key: key[2] ?? '' };
  throw badRequest(`unable to parse requirement: found '${term}' in label selector "${selector}"`);
}

function test(req: Requirement, labels: Record<string, string>): boolean {
  const has = Object.prototype.hasOwnProperty.call(labels, req.key);
  const value = labels[req.key];
  switch (req.op) {
    case 'eq':
      return has && value === req.value;
    case 'neq':
      return !has || value !== req.value;
    case 'in':
      return has && req.values.has(value ?? '');
    case 'notin':
      return !has || !req.values.has(value ?? '');
    case 'exists':
      return has;
    case 'absent':
      return !has;
  }
}

export function parseLabelSelector(selector: string | undefined): Matcher {
  if (selector === undefined || selector.trim() === '') return matchAll;
  const reqs = splitTerms(selector).map((t) => parseTerm(t, selector));
  return (obj) => {
    const labels = obj.metadata.labels ?? {};
    return reqs.every((r) => test(r, labels));
  };
}

/** A `metav1.LabelSelector` (matchLabels + matchExpressions) as a matcher over a label map. */
export function labelSelectorMatches(selector: unknown, labels: Record<string, string>): boolean {
  if (!isRecord(selector)) return false;
  const ml = isRecord(selector.matchLabels) ? selector.matchLabels : {};
  for (const [k, v] of Object.entries(ml)) if (labels[k] !== v) return false;
  const exprs = Array.isArray(selector.matchExpressions) ? selector.matchExpressions : [];
  for (const e of exprs) {
    if (!isRecord(e) || typeof e.key !== 'string') return false;
    const values = new Set(Array.isArray(e.values) ? e.values.map(String) : []);
    const has = Object.prototype.hasOwnProperty.call(labels, e.key);
    const v = labels[e.key] ?? '';
    const ok = e.operator === 'In' ? has && values.has(v) : e.operator === 'NotIn' ? !has || !values.has(v) : e.operator === 'Exists' ? has : !has;
    if (!ok) return false;
  }
  return true;
}

/** `metav1.LabelSelector` as its string form (`a=b,c in (d)`), for Scale's `status.selector`. */
export function labelSelectorString(selector: unknown): string {
  if (!isRecord(selector)) return '';
  const parts: string[] = [];
  const ml = isRecord(selector.matchLabels) ? selector.matchLabels : {};
  for (const [k, v] of Object.entries(ml).sort(([a], [b]) => a.localeCompare(b))) parts.push(`${k}=${String(v)}`);
  const exprs = Array.isArray(selector.matchExpressions) ? selector.matchExpressions : [];
  for (const e of exprs) {
    if (!isRecord(e) || typeof e.key !== 'string') continue;
    const values = Array.isArray(e.values) ? e.values.map(String).join(',') : '';
    if (e.operator === 'In') parts.push(`${e.key} in (${values})`);
    else if (e.operator === 'NotIn') parts.push(`${e.key} notin (${values})`);
    else if (e.operator === 'Exists') parts.push(e.key);
    else parts.push(`!${e.key}`);
  }
  return parts.join(',');
}

/** Fields selectable per kind beyond metadata.name/namespace (the common ones kubectl users reach for). */
const KIND_FIELDS: Record<string, string[]> = {
  Pod: ['status.phase', 'spec.nodeName', 'spec.restartPolicy', 'spec.serviceAccountName', 'status.podIP'],
  Event: ['involvedObject.kind', 'involvedObject.name', 'involvedObject.namespace', 'involvedObject.uid', 'reason', 'type'],
  Secret: ['type'],
  Namespace: ['status.phase'],
  Node: ['spec.unschedulable'],
  Job: ['status.successful'],
  ReplicaSet: ['status.replicas'],
};

function fieldValue(obj: KubeObject, path: string): string {
  let cur: unknown = obj;
  for (const part of path.split('.')) cur = isRecord(cur) ? cur[part] : undefined;
  return cur === undefined || cur === null ? '' : JSON.stringify(cur).replace(/^"|"$/g, '');
}

const FIELD_RE = /^([A-Za-z0-9_.]+)\s*(==|=|!=)\s*(.*)$/;

export function parseFieldSelector(selector: string | undefined, kind: string, custom: boolean): Matcher {
  if (selector === undefined || selector.trim() === '') return matchAll;
  const allowed = new Set(['metadata.name', 'metadata.namespace', ...(KIND_FIELDS[kind] ?? [])]);
  const reqs = splitTerms(selector).map((term) => {
    const m = FIELD_RE.exec(term);
    if (!m) throw badRequest(`invalid selector: '${selector}'; can't understand '${term}'`);
    const field = m[1] ?? '';
    if (!allowed.has(field)) {
      throw badRequest(custom ? `"${field}" is not a known field selector: only "metadata.name", "metadata.namespace"` : `field label not supported: ${field}`);
    }
    return { field, neg: m[2] === '!=', value: (m[3] ?? '').trim() };
  });
  return (obj) => reqs.every((r) => (fieldValue(obj, r.field) === r.value) !== r.neg);
}

/**
 * The one name a field selector allows, when it has a `metadata.name=` (or `==`) term: a list then
 * looks that name up instead of walking its namespace (a readiness gate lists one object by name, and
 * namespaces hold hundreds at scale). The selector's matcher still decides; parse it first (errors).
 */
export function pinnedName(selector: string | undefined): string | undefined {
  if (selector === undefined) return undefined;
  for (const term of splitTerms(selector)) {
    const m = FIELD_RE.exec(term);
    if (m && m[1] === 'metadata.name' && m[2] !== '!=') return (m[3] ?? '').trim();
  }
  return undefined;
}
