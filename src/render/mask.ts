/**
 * Masking of sensitive values wherever output is shown to people (render output, logs, status, previews).
 * A value is masked where it appears whole, as a substring (when at least 4 characters long, so that
 * a short value does not blank out unrelated text), and in its base64 form (as a Secret's `data` holds it).
 */
export const MASK = '***';
const MIN_SUBSTRING = 4;

function base64(s: string): string {
  return Buffer.from(s, 'utf8').toString('base64');
}

/** The strings to hide for a list of sensitive values: each value and its base64 form, longest first. */
export function maskNeedles(sensitiveValues: readonly string[]): string[] {
  const set = new Set<string>();
  for (const v of sensitiveValues) {
    if (v === '') continue;
    set.add(v);
    set.add(base64(v));
  }
  return [...set].sort((a, b) => b.length - a.length);
}

function maskString(text: string, needles: readonly string[]): string {
  let out = text;
  for (const n of needles) {
    if (out === n) return MASK;
    if (n.length >= MIN_SUBSTRING && out.includes(n)) out = out.split(n).join(MASK);
  }
  return out;
}

/**
 * Returns a copy of `value` (a string or any JSON-like value) with sensitive values masked. Object keys
 * are kept; only string values change.
 */
export function maskSensitive<T>(value: T, sensitiveValues: readonly string[]): T {
  const needles = maskNeedles(sensitiveValues);
  if (needles.length === 0) return value;
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return maskString(v, needles);
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) out[k] = walk(x);
      return out;
    }
    return v;
  };
  return walk(value) as T;
}
