/**
 * Version ranges of Instance tasks, a small subset of npm's: an exact version, `^1.2.3` (same major;
 * same minor below 1.0.0), `~1.2.3` (same minor), `*`, or space-separated comparators (`>=1.0.0 <2.0.0`).
 * The highest listed version that satisfies the range wins; prereleases match only when named exactly.
 */
import { compareSemver } from '../../plans/semver.js';
import { SEMVER } from '../../render/versions.js';

type Comparator = { op: '>=' | '>' | '<=' | '<' | '='; version: string };

export function parseRange(range: string): Comparator[] | undefined {
  const out: Comparator[] = [];
  for (const part of range.trim().split(/\s+/)) {
    if (part === '*') continue;
    const m = /^(\^|~|>=|<=|>|<|=)?(.+)$/.exec(part);
    if (!m || !SEMVER.test(m[2]!)) return undefined;
    const v = m[2]!;
    const [major, minor] = v.split(/[.+-]/).map(Number) as [number, number];
    const op = m[1] ?? '=';
    if (op === '^') out.push({ op: '>=', version: v }, { op: '<', version: major > 0 ? `${major + 1}.0.0` : `0.${minor + 1}.0` });
    else if (op === '~') out.push({ op: '>=', version: v }, { op: '<', version: `${major}.${minor + 1}.0` });
    else out.push({ op: op as Comparator['op'], version: v });
  }
  return out;
}

function satisfies(version: string, range: readonly Comparator[]): boolean {
  if (version.includes('-') && !range.some((c) => c.op === '=' && c.version === version)) return false;
  return range.every((c) => {
    const d = compareSemver(version, c.version);
    return c.op === '>=' ? d >= 0 : c.op === '>' ? d > 0 : c.op === '<=' ? d <= 0 : c.op === '<' ? d < 0 : d === 0;
  });
}

/** The highest of `versions` in `range`; undefined when none (or the range does not parse). */
export function bestVersion(versions: readonly string[], range: string): string | undefined {
  const parsed = parseRange(range);
  if (!parsed) return undefined;
  return versions.filter((v) => SEMVER.test(v) && satisfies(v, parsed)).sort(compareSemver).at(-1);
}
