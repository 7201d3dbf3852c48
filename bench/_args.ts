/** Reads `--name value` from a bench's argument list. */
export function numberArg(args: string[], name: string, fallback: number): number {
  const i = args.indexOf(`--${name}`);
  if (i < 0) return fallback;
  const value = Number(args[i + 1]);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} expects a positive number, got ${args[i + 1] ?? '(nothing)'}`);
  return value;
}

/** Reads `--name value` (a string) from a bench's argument list; undefined when absent. */
export function stringArg(args: string[], name: string): string | undefined {
  const i = args.indexOf(`--${name}`);
  if (i < 0) return undefined;
  const value = args[i + 1];
  if (value === undefined || value === '') throw new Error(`--${name} expects a value`);
  return value;
}
