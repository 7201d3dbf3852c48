/**
 * Builds README.md, the user's manual, from the fragments in docs/ (each area documents itself there).
 * Run: `npx tsx scripts/build-readme.ts`. test/readme.test.ts fails when README.md is stale.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildReadme } from './readme-parts.js';

const root = fileURLToPath(new URL('..', import.meta.url));
writeFileSync(`${root}/README.md`, buildReadme(root));
console.log('wrote README.md');
