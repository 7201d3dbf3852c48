/** Reads `--name value` from a bench's argument list. */
export function numberArg(args: string[], name: string, fallback: number): number {
  const i = args.indexOf(`--${name}`);
  if (i < 0) return fallback;
  const value = Number(args[i + 1]);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} expects a positive number, got ${args[i + 1] ?? '(nothing)'}`);
  return value;
}
