/**
 * A small semver 2.0 precedence comparison (major.minor.patch[-prerelease][+build]); the renderer
 * validates version syntax, so this only orders. Kept local rather than adding a dependency.
 */
export function compareSemver(a: string, b: string): number {
  const pa = parse(a);
  const pb = parse(b);
  for (let i = 0; i < 3; i++) {
    const d = (pa.core[i] ?? 0) - (pb.core[i] ?? 0);
    if (d !== 0) return Math.sign(d);
  }
  // A version without prerelease ranks above one with it (1.0.0 > 1.0.0-rc.1).
  if (pa.pre.length === 0 || pb.pre.length === 0) return Math.sign(pb.pre.length - pa.pre.length);
  for (let i = 0; i < Math.max(pa.pre.length, pb.pre.length); i++) {
    const x = pa.pre[i];
    const y = pb.pre[i];
    if (x === undefined) return -1;
    if (y === undefined) return 1;
    const d = compareIdentifier(x, y);
    if (d !== 0) return d;
  }
  return 0;
}

function parse(v: string): { core: number[]; pre: string[] } {
  const [main = '', ...rest] = v.replace(/^v/, '').split('+')[0]?.split('-') ?? [];
  const pre = rest.join('-');
  return { core: main.split('.').map((n) => Number.parseInt(n, 10) || 0), pre: pre ? pre.split('.') : [] };
}

function compareIdentifier(x: string, y: string): number {
  const nx = /^\d+$/.test(x);
  const ny = /^\d+$/.test(y);
  if (nx && ny) return Math.sign(Number(x) - Number(y));
  if (nx !== ny) return nx ? -1 : 1;
  return x < y ? -1 : x > y ? 1 : 0;
}
