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

/**
 * The trailer lines of a commit message in their order (the last paragraph, when every line of it is
 * `Key: value`), or an empty list.
 */
export function trailerLines(message: string): Array<[key: string, value: string]> {
  const paragraphs = message.trim().split(/\n\s*\n/);
  if (paragraphs.length < 2) return [];
  const lines = (paragraphs[paragraphs.length - 1] ?? '').split('\n');
  const out: Array<[string, string]> = [];
  for (const line of lines) {
    const m = TRAILER_LINE.exec(line);
    if (!m) return [];
    out.push([m[1] ?? '', (m[2] ?? '').trim()]);
  }
  return out;
}

const TRAILER_LINE = /^([A-Za-z0-9][A-Za-z0-9-]*):\s?(.*)$/;

/** The trailers of a commit message by key (values in order): see trailerLines. */
export function parseTrailers(message: string): Map<string, string[]> {
  return groupTrailers(trailerLines(message));
}

/** Trailer lines by key, each key's values in order. */
export function groupTrailers(lines: ReadonlyArray<readonly [string, string]>): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [key, value] of lines) {
    const list = out.get(key) ?? [];
    list.push(value);
    out.set(key, list);
  }
  return out;
}

/** The first value of trailer `key`, if any. */
export function trailer(trailers: ReadonlyMap<string, string[]>, key: string): string | undefined {
  return trailers.get(key)?.[0];
}
