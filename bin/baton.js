#!/usr/bin/env node
// Entry point: runs the compiled CLI (built by `npm ci` through the `prepare` script).
import { main } from '../dist/cli/main.js';

main(process.argv).then(
  (code) => { process.exitCode = code; },
  (err) => { console.error(err instanceof Error ? err.stack : String(err)); process.exitCode = 1; },
);
