/** Small pure helpers for the value formats of Baton's files: semver, durations, DNS-1123 names. */

export const SEMVER =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*)(?:\.(?:0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*))*))?(?:\+([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?$/;

export interface SemVer {
  major: number;
  minor: number;
  patch: number;
  prerelease: string[];
}

export function parseSemver(v: string): SemVer | undefined {
  const m = SEMVER.exec(v);
  if (!m) return undefined;
  return { major: Number(m[1]), minor: Number(m[2]), patch: Number(m[3]), prerelease: m[4] ? m[4].split('.') : [] };
}

export function isSemver(v: string): boolean {
  return SEMVER.test(v);
}

/** Semver precedence; versions that do not parse sort before those that do, then by string. */
export function compareSemver(a: string, b: string): number {
  const x = parseSemver(a);
  const y = parseSemver(b);
  if (!x || !y) return x ? 1 : y ? -1 : a < b ? -1 : a > b ? 1 : 0;
  const core = x.major - y.major || x.minor - y.minor || x.patch - y.patch;
  if (core !== 0) return Math.sign(core);
  if (x.prerelease.length === 0 || y.prerelease.length === 0) return y.prerelease.length - x.prerelease.length === 0 ? 0 : x.prerelease.length === 0 ? 1 : -1;
  for (let i = 0; i < Math.max(x.prerelease.length, y.prerelease.length); i++) {
    const p = x.prerelease[i];
    const q = y.prerelease[i];
    if (p === undefined) return -1;
    if (q === undefined) return 1;
    const pn = /^\d+$/.test(p);
    const qn = /^\d+$/.test(q);
    if (pn && qn && Number(p) !== Number(q)) return Number(p) < Number(q) ? -1 : 1;
    if (pn !== qn) return pn ? -1 : 1;
    if (p !== q) return p < q ? -1 : 1;
  }
  return 0;
}

/** The highest version of a list (semver precedence), or undefined for an empty list. */
export function latestVersion(versions: readonly string[]): string | undefined {
  return [...versions].sort(compareSemver).at(-1);
}

const DURATION = /^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/;
/** The same as a JSON-Schema-friendly pattern (non-empty). */
export const DURATION_PATTERN = /^(?=\d)(?:\d+h)?(?:\d+m)?(?:\d+s)?$/;

/** `90s`, `10m`, `1h30m` -> seconds; undefined when the text is not a duration. */
export function parseDuration(text: string): number | undefined {
  const m = DURATION.exec(text);
  if (!m || text === '') return undefined;
  return Number(m[1] ?? 0) * 3600 + Number(m[2] ?? 0) * 60 + Number(m[3] ?? 0);
}

export const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

export function isDnsLabel(name: string): boolean {
  return name.length <= 63 && DNS1123_LABEL.test(name);
}
