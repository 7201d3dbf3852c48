/** Path and name globs of baton.yaml tenants: `*` within one path segment, `**` across segments, `?` one character. */
const cache = new Map<string, RegExp>();

export function globToRegExp(glob: string): RegExp {
  let re = cache.get(glob);
  if (re) return re;
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*' && glob[i + 1] === '*') {
      // `**/` matches zero or more whole segments; a trailing `**` matches the rest.
      if (glob[i + 2] === '/') { out += '(?:.*/)?'; i += 2; } else { out += '.*'; i += 1; }
    } else if (c === '*') out += '[^/]*';
    else if (c === '?') out += '[^/]';
    else out += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  re = new RegExp(`^${out}$`);
  if (cache.size > 1000) cache.clear();
  cache.set(glob, re);
  return re;
}

export function matchesAny(globs: readonly string[], text: string): boolean {
  return globs.some((g) => globToRegExp(g).test(text));
}
