/**
 * Writes the generated reference pages (docs/reference/: cli.md, formats.md, metrics.md, problem-codes.md).
 * Run: `npm run docs:gen` after changing a command, a flag or a file format.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generatedDocs } from './docs-reference.js';

const root = fileURLToPath(new URL('..', import.meta.url));
for (const [path, text] of Object.entries(await generatedDocs(root))) {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
  console.log(`wrote ${path}`);
}
