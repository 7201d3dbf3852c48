/** The generated reference pages are current (regenerate: npm run docs:gen), and README stays a front page. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generatedDocs } from '../../scripts/docs-reference.js';
import { ROOT } from '../helpers/cli.js';

describe('docs/reference', () => {
  it('is current: cli.md, formats.md, metrics.md, problem-codes.md (run: npm run docs:gen)', async () => {
    const pages = await generatedDocs(ROOT);
    expect(Object.keys(pages)).toHaveLength(4);
    for (const [path, text] of Object.entries(pages)) expect(readFileSync(join(ROOT, path), 'utf8'), path).toBe(text);
  });
});

describe('README.md', () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');

  it('is a front page of at most about 250 lines that starts the tour with the install', () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(260);
    expect(readme).toContain('npm install -g');
    expect(readme.indexOf('npm install -g')).toBeLessThan(readme.indexOf('baton init my-ops'));
    for (const prerequisite of ['git', 'kubectl', 'Node.js 20']) expect(readme).toContain(prerequisite);
  });

  it('links the docs index, the getting-started page and the repository template guide', () => {
    for (const page of ['docs/README.md', 'docs/getting-started.md', 'repo-template/README.md', 'docs/reference/cli.md']) expect(readme).toContain(`](${page}`);
  });
});
