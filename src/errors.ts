/**
 * The root of Baton's typed errors. Every error carries a stable `code` (documented in the README,
 * safe for scripts to match on) and structured `context` so callers never parse messages.
 */
export class BatonError extends Error {
  readonly code: string;
  readonly context: Readonly<Record<string, unknown>>;

  constructor(code: string, message: string, context: Record<string, unknown> = {}, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
    this.context = context;
  }
}

/** Exit codes scripts can rely on: 0 ok, 1 invalid input or failed plan, 2 usage error. */
export const ExitCode = { Ok: 0, Invalid: 1, Usage: 2 } as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
