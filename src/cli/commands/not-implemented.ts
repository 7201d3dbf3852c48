import type { CliIO } from '../io.js';

/** Placeholder action for a command whose issue has not landed yet: says so and fails (exit 2). */
export function notImplemented(io: CliIO, name: string, issue: number): () => void {
  return () => {
    io.stderr(`baton ${name}: not implemented yet (tracked in issue ${issue})\n`);
    io.exitCode = 2;
  };
}
