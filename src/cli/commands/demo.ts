/** `baton demo` (what `npm start` runs): see src/demo/demo.ts. */
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { runDemo } from '../../demo/demo.js';
import type { CliIO } from '../io.js';

/** repo-template/ of this installation (two levels above src/cli or dist/cli). */
const TEMPLATE = fileURLToPath(new URL('../../../repo-template', import.meta.url));

export function registerDemo(program: Command, io: CliIO): void {
  program
    .command('demo')
    .description('The demo: a repository from repo-template/, the simulated cluster and the agent (ends by itself)')
    .option('--dir <dir>', 'where the demo lives; recreated on every run', '.baton-demo')
    .action(async (flags: { dir: string }) => {
      // Imported lazily: the CLI module graph must not load the agent's runner for every command.
      const { main } = await import('../main.js');
      io.exitCode = await runDemo({ dir: resolve(io.cwd, flags.dir), template: join(TEMPLATE), baton: main, io });
    });
}
