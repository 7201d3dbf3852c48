/**
 * Every relative link and #anchor in every Markdown file of the repository resolves: the file exists
 * and, with an anchor, the target has a heading (GitHub's anchor rules) or an explicit id with that name.
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';
import { headingAnchors, markdownLinks } from '../../scripts/markdown.js';

const SKIP = new Set(['node_modules', '.git', 'dist', 'coverage', '.baton-demo']);

function markdownFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    if (SKIP.has(name)) return [];
    const full = join(dir, name);
    if (statSync(full).isDirectory()) return markdownFiles(full);
    return name.endsWith('.md') ? [full] : [];
  });
}

const files = markdownFiles(ROOT);
const anchorsOf = new Map<string, Set<string>>();
const anchors = (file: string): Set<string> => {
  let found = anchorsOf.get(file);
  if (!found) anchorsOf.set(file, (found = headingAnchors(readFileSync(file, 'utf8'))));
  return found;
};

describe('Markdown links', () => {
  it('finds the Markdown files (README.md, docs/)', () => {
    expect(files.map((f) => relative(ROOT, f))).toEqual(expect.arrayContaining(['README.md', 'docs/README.md']));
  });

  it.each(files.map((f) => [relative(ROOT, f), f]))('%s: every relative link and anchor resolves', (_name, file) => {
    const broken: string[] = [];
    for (const link of markdownLinks(readFileSync(file, 'utf8'))) {
      const [path = '', anchor] = link.target.split('#', 2);
      const target = path === '' ? file : resolve(dirname(file), decodeURIComponent(path));
      if (!existsSync(target)) {
        broken.push(`line ${link.line}: ${link.target} (no such file)`);
        continue;
      }
      if (anchor !== undefined && anchor !== '' && target.endsWith('.md') && !anchors(target).has(anchor.toLowerCase())) {
        broken.push(`line ${link.line}: ${link.target} (no heading for #${anchor})`);
      }
    }
    expect(broken).toEqual([]);
  });
});
