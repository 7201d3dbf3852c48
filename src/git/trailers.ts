/**
 * Commit message trailers (`Key: value` lines in the last paragraph, as `git interpret-trailers`
 * writes them): how status commits carry machine-readable facts that `baton history` reads back.
 */

export type Trailers = ReadonlyArray<readonly [key: string, value: string]>;

/** `summary`, a blank line, optional body, a blank line, then the trailers. Values are kept on one line. */
export function formatMessage(summary: string, body: string | undefined, trailers: Trailers): string {
  const oneLine = (s: string): string => s.replace(/[\r\n]+/g, ' ').trim();
  const parts = [oneLine(summary)];
  if (body && body.trim() !== '') parts.push(body.trim());
  if (trailers.length > 0) parts.push(trailers.map(([k, v]) => `${k}: ${oneLine(v)}`).join('\n'));
  return `${parts.join('\n\n')}\n`;
}

/** The trailers of a commit message: the last paragraph, when every line of it is `Key: value`. */
export function parseTrailers(message: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const paragraphs = message.trim().split(/\n\s*\n/);
  if (paragraphs.length < 2) return out;
  const last = paragraphs[paragraphs.length - 1] ?? '';
  const lines = last.split('\n');
  const pattern = /^([A-Za-z0-9][A-Za-z0-9-]*):\s?(.*)$/;
  if (!lines.every((l) => pattern.test(l))) return out;
  for (const line of lines) {
    const m = pattern.exec(line);
    if (!m) continue;
    const key = m[1] ?? '';
    const list = out.get(key) ?? [];
    list.push((m[2] ?? '').trim());
    out.set(key, list);
  }
  return out;
}

/** The first value of trailer `key`, if any. */
export function trailer(trailers: ReadonlyMap<string, string[]>, key: string): string | undefined {
  return trailers.get(key)?.[0];
}
