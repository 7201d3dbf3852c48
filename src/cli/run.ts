/**
 * Process entry of the CLI. `bin/baton.js` runs the compiled form; tests and developers can run the
 * sources directly with `node --import tsx src/cli/run.ts ...`.
 */
import { main } from './main.js';

main(process.argv).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    console.error(err instanceof Error ? err.stack : String(err));
    process.exitCode = 1;
  },
);
