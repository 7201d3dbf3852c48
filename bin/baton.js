#!/usr/bin/env node
// Entry point: runs the compiled CLI. The published package ships dist/; a checkout builds it with
// `npm ci` (the `prepare` script) or `npm run build`.
import { existsSync } from 'node:fs';

const entry = new URL('../dist/cli/run.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write(`error: ${entry.pathname} is missing: run \`npm run build\` in ${new URL('..', import.meta.url).pathname}\n`);
  process.exit(1);
}
await import(entry.href);
