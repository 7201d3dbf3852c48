#!/usr/bin/env node
// Entry point: runs the compiled CLI (built by `npm ci` through the `prepare` script).
import '../dist/cli/run.js';
