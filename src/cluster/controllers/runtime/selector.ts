/** Label selectors as workloads declare them (`matchLabels` and `matchExpressions`). */
import { record, records } from './meta.js';

export type Selector = (labels: Record<string, string> | undefined) => boolean;

export function selectorFrom(value: unknown): Selector {
  const sel = record(value);
  const matchLabels = record(sel.matchLabels);
  const expressions = records(sel.matchExpressions);
  // An empty selector matches nothing for workloads (the API server refuses one anyway).
  if (Object.keys(matchLabels).length === 0 && expressions.length === 0) return () => false;
  return (labels = {}) =>
    Object.entries(matchLabels).every(([k, v]) => labels[k] === v) &&
    expressions.every((e) => {
      const key = String(e.key);
      const values = Array.isArray(e.values) ? e.values.map(String) : [];
      switch (e.operator) {
        case 'In':
          return labels[key] !== undefined && values.includes(labels[key]);
        case 'NotIn':
          return labels[key] === undefined || !values.includes(labels[key]);
        case 'Exists':
          return key in labels;
        case 'DoesNotExist':
          return !(key in labels);
        default:
          return false;
      }
    });
}

/** A Service's plain map selector. */
export function mapSelector(value: unknown): Selector | undefined {
  const sel = record(value);
  if (Object.keys(sel).length === 0) return undefined;
  return (labels = {}) => Object.entries(sel).every(([k, v]) => labels[k] === v);
}

/** `a=b,c=d` for `.status.selector` (what `kubectl scale` and HPAs read). */
export function selectorString(value: unknown): string {
  const sel = record(value);
  const parts = Object.entries(record(sel.matchLabels)).map(([k, v]) => `${k}=${String(v)}`);
  for (const e of records(sel.matchExpressions)) {
    const values = Array.isArray(e.values) ? e.values.map(String).join(',') : '';
    if (e.operator === 'In') parts.push(`${String(e.key)} in (${values})`);
    else if (e.operator === 'NotIn') parts.push(`${String(e.key)} notin (${values})`);
    else if (e.operator === 'Exists') parts.push(String(e.key));
    else if (e.operator === 'DoesNotExist') parts.push(`!${String(e.key)}`);
  }
  return parts.join(',');
}
