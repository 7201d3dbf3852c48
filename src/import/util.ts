/** Small helpers shared by the importers. */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A DNS-1123 label made from any name: lowercase, runs of other characters become "-", at most 63. */
export function toDnsLabel(s: string): string {
  return s
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 63)
    .replace(/-+$/, '');
}

/** A version as semver: "1.2" -> "1.2.0", "v1.2.3" -> "1.2.3"; undefined when it is not one. */
export function toSemver(v: string): string | undefined {
  const m = /^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/.exec(v.trim());
  if (!m) return undefined;
  return `${Number(m[1])}.${Number(m[2] ?? 0)}.${Number(m[3] ?? 0)}${m[4] ?? ''}${m[5] ?? ''}`;
}

/** Text of a scalar from parsed YAML/JSON: strings as they are, numbers and booleans printed, anything else as JSON. */
export function scalarText(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  return JSON.stringify(v) ?? '';
}
