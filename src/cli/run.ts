/**
 * Process entry of the CLI. `bin/baton.js` runs the compiled form; tests and developers can run the
 * sources directly with `node --import tsx src/cli/run.ts ...`.
 */
import { main } from './main.js';

// `baton history | head`: when the reader goes away, stop quietly as Unix tools do, not with a stack trace.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw err;
  });
}

main(process.argv).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    console.error(err instanceof Error ? err.stack : String(err));
    process.exitCode = 1;
  },
);
