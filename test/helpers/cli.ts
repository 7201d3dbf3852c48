/**
 * How tests run the real CLI as a child process from the sources (no build needed): node with the tsx
 * loader given by absolute path, so it works from any working directory.
 */
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

export const ROOT = resolve(import.meta.dirname, '../..');
const TSX_LOADER = pathToFileURL(join(ROOT, 'node_modules/tsx/dist/loader.mjs')).href;

/** argv for spawn: `[node, --import, tsx, src/cli/run.ts]`; append the baton arguments. */
export const BATON_ARGV: readonly string[] = [process.execPath, '--import', TSX_LOADER, join(ROOT, 'src/cli/run.ts')];

/**
 * The same as one string for CI scripts that expand `$BATON` unquoted (word splitting, no quote
 * removal), as the shipped CI definitions do; the checkout path must not contain spaces.
 */
export const BATON_SHELL = BATON_ARGV.join(' ');
