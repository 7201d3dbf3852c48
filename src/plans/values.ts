/**
 * The stored form of an instance's values: what the checkpoint keeps as "last applied values".
 * Sensitive values are kept only as an (unsalted) SHA-256 so a change is detected without ever
 * storing the secret; everything else is kept as canonical JSON so comparisons ignore key order.
 */
import { createHash } from 'node:crypto';

export type StoredValues = Record<string, string>;

export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** `sensitive` names the parameters whose values must never be stored in clear. */
export function storeValues(values: Readonly<Record<string, unknown>>, sensitive: ReadonlySet<string>): StoredValues {
  const out: StoredValues = {};
  for (const key of Object.keys(values).sort()) {
    // An optional parameter without a value (null) is stored as absent, as it always was: instances
    // applied before optional parameters reached templates as null must not look changed.
    if (values[key] === null || values[key] === undefined) continue;
    const json = canonicalJson(values[key]);
    out[key] = sensitive.has(key) ? `sha256:${sha256Hex(json)}` : json;
  }
  return out;
}

/** Names of parameters whose stored form differs (added, removed or changed), sorted. */
export function changedKeys(previous: StoredValues, desired: StoredValues): string[] {
  const keys = new Set([...Object.keys(previous), ...Object.keys(desired)]);
  return [...keys].filter((k) => previous[k] !== desired[k]).sort();
}
