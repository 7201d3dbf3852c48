/**
 * Process entry of the CLI. `bin/baton.js` runs the compiled form; tests and developers can run the
 * sources directly with `node --import tsx src/cli/run.ts ...`.
 */
import { applyAgentV8Settings } from './agent-v8.js';

// Before the CLI's modules load (they allocate most of what the process keeps): `baton agent` sizes
// its own heap (agent-v8.ts). A static import of main.js would load them first.
applyAgentV8Settings();
const { main } = await import('./main.js');

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
