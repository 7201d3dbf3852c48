/**
 * The two things the docs tooling needs from Markdown: the relative links a file makes, and the
 * anchors its headings get on GitHub. Code blocks and inline code are skipped.
 */

export interface MarkdownLink {
  target: string;
  line: number;
}

/** Lines outside fenced code blocks, with their 1-based numbers and inline code blanked out. */
function proseLines(text: string): { text: string; line: number }[] {
  const out: { text: string; line: number }[] = [];
  let fence: string | undefined;
  text.split('\n').forEach((raw, i) => {
    const marker = /^\s*(```+|~~~+)/.exec(raw)?.[1];
    if (marker !== undefined) {
      if (fence === undefined) fence = marker[0];
      else if (marker[0] === fence) fence = undefined;
      return;
    }
    if (fence === undefined) out.push({ text: raw.replace(/`[^`]*`/g, (m) => ' '.repeat(m.length)), line: i + 1 });
  });
  return out;
}

/** Relative links (`[x](path#anchor)`, `[x]: path`, `<a href>`); URLs with a scheme and mailto: are left out. */
export function markdownLinks(text: string): MarkdownLink[] {
  const links: MarkdownLink[] = [];
  for (const { text: line, line: n } of proseLines(text)) {
    const found = [
      ...[...line.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]),
      ...[...line.matchAll(/^\s*\[[^\]]+\]:\s*(\S+)/g)].map((m) => m[1]),
      ...[...line.matchAll(/href="([^"]+)"/g)].map((m) => m[1]),
    ];
    for (const target of found) {
      if (target === undefined || /^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
      links.push({ target, line: n });
    }
  }
  return links;
}

/** GitHub's anchor for a heading: lowercase, punctuation dropped, spaces to "-". */
export function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** Every anchor a file offers: its headings (repeats get -1, -2, ...) and explicit id/name attributes. */
export function headingAnchors(text: string): Set<string> {
  const out = new Set<string>();
  const seen = new Map<string, number>();
  // Links keep their text; HTML tags go, except inside code spans, whose text is kept as written.
  const inline = (s: string): string =>
    s
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .split('`')
      .map((part, i) => (i % 2 === 1 ? part : part.replace(/<[^>]+>/g, '')))
      .join('');
  let fence: string | undefined;
  for (const raw of text.split('\n')) {
    const marker = /^\s*(```+|~~~+)/.exec(raw)?.[1];
    if (marker !== undefined) {
      if (fence === undefined) fence = marker[0];
      else if (marker[0] === fence) fence = undefined;
      continue;
    }
    if (fence !== undefined) continue;
    for (const m of raw.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) if (m[1]) out.add(m[1].toLowerCase());
    const heading = /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(raw)?.[1];
    if (heading === undefined) continue;
    const base = slug(inline(heading));
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    out.add(count === 0 ? base : `${base}-${count}`);
  }
  return out;
}
