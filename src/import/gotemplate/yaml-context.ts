/**
 * Where each output action of a template sits in the YAML it produces, read from a skeleton of the
 * template: its text, with one marker character per action. Go inserts text; Baton's `<%= %>` prints a
 * whole YAML scalar. To translate faithfully, the importer needs the full extent of the scalar an action
 * is part of (so `name: {{ .Name }}-config` becomes one `<%= instance.name + '-config' %>`), or to know
 * that the action is inside a block scalar or stands for YAML structure (then it is printed raw).
 *
 * Control actions (if/range/with/else/end, declarations) are CONTROL markers: invisible to YAML, but
 * kept in the skeleton so the caller can see whether a scalar contains control flow.
 */
export const OUTPUT = '\uE000';
export const CONTROL = '\uE001';

export type ScalarContext =
  /** A plain scalar value or sequence item: `k: {{ x }}-y`. */
  | 'plain'
  /** Inside double quotes, quotes included in the extent. */
  | 'double'
  /** Inside single quotes, quotes included. */
  | 'single'
  /** A mapping key. */
  | 'key'
  /** Content of a `|` or `>` block scalar: text. */
  | 'block'
  /** Inside a `#` comment. */
  | 'comment'
  /** The whole line is output: it stands for YAML structure (as `{{ toYaml .X | indent 4 }}`). */
  | 'line';

export interface Extent {
  /** Skeleton offsets, [start, end). */
  start: number;
  end: number;
  context: ScalarContext;
}

interface VisibleLine {
  text: string;
  /** Skeleton offset of each visible character; one more entry for the end of the line. */
  at: number[];
}

function visibleLine(skel: string, start: number, end: number): VisibleLine {
  let text = '';
  const at: number[] = [];
  for (let i = start; i < end; i++) {
    if (skel[i] === CONTROL) continue;
    text += skel[i];
    at.push(i);
  }
  at.push(end);
  return { text, at };
}

/** Every scalar extent of the skeleton that contains an OUTPUT marker. */
export function outputExtents(skel: string): Extent[] {
  const out: Extent[] = [];
  let blockParent: number | undefined;
  let lineStart = 0;
  while (lineStart <= skel.length) {
    const nl = skel.indexOf('\n', lineStart);
    const lineEnd = nl < 0 ? skel.length : nl;
    const line = visibleLine(skel, lineStart, lineEnd);
    const found: Extent[] = [];
    const indent = line.text.length - line.text.replace(/^ +/, '').length;
    const content = line.text.slice(indent);
    let inBlock = false;
    if (blockParent !== undefined) {
      if (content === '' || indent > blockParent || content.startsWith(OUTPUT)) inBlock = true;
      else blockParent = undefined;
    }
    if (inBlock) {
      for (let i = 0; i < line.text.length; i++) if (line.text[i] === OUTPUT) found.push({ start: i, end: i + 1, context: 'block' });
    } else {
      const header = scanStructuralLine(line.text, indent, found);
      if (header !== undefined) blockParent = header;
    }
    for (const e of found) out.push({ start: line.at[e.start]!, end: line.at[e.end - 1]! + 1, context: e.context });
    if (nl < 0) break;
    lineStart = nl + 1;
  }
  return out;
}

/**
 * Reads one line of YAML structure and records the extents holding OUTPUT markers. Returns the parent
 * indentation when the line opens a block scalar (`key: |`), so the following lines are read as its text.
 */
function scanStructuralLine(s: string, indent: number, found: Extent[]): number | undefined {
  let p = indent;
  const content = s.slice(indent);
  if (content === '' || content.startsWith('---') || content.startsWith('...')) return mark(s, p, s.length, 'line', found);
  if (content.startsWith('#')) return mark(s, p, s.length, 'comment', found);
  let parent = indent;
  let dashes = 0;
  while (s[p] === '-' && (p + 1 === s.length || s[p + 1] === ' ')) {
    parent = p;
    dashes++;
    p++;
    while (s[p] === ' ') p++;
  }
  const nodeStart = p;
  const colon = mappingColon(s, p);
  let valueStart = p;
  if (colon !== undefined) {
    const keyEnd = trimEnd(s, nodeStart, colon);
    if (hasOutput(s, nodeStart, keyEnd)) found.push({ start: nodeStart, end: keyEnd, context: 'key' });
    parent = nodeStart;
    valueStart = colon + 1;
    while (s[valueStart] === ' ') valueStart++;
  }
  const header = scanValue(s, valueStart, found, colon === undefined && dashes === 0);
  // The rest of the line (a comment) may still hold markers.
  return header ? parent : undefined;
}

function mark(s: string, from: number, to: number, context: Extent['context'], found: Extent[]): undefined {
  for (let i = from; i < to; i++) if (s[i] === OUTPUT) found.push({ start: i, end: i + 1, context });
  return undefined;
}

function hasOutput(s: string, from: number, to: number): boolean {
  return s.slice(from, to).includes(OUTPUT);
}

function trimEnd(s: string, from: number, to: number): number {
  let e = to;
  while (e > from && s[e - 1] === ' ') e--;
  return e;
}

/** The offset of the `:` that ends a mapping key on this line, outside quotes and flow collections. */
function mappingColon(s: string, from: number): number | undefined {
  let i = from;
  if (s[i] === '[' || s[i] === '{' || s[i] === '|' || s[i] === '>') return undefined;
  if (s[i] === '"' || s[i] === "'") {
    const close = quotedEnd(s, i);
    if (close === undefined) return undefined;
    i = close;
    while (s[i] === ' ') i++;
    return s[i] === ':' && (i + 1 === s.length || s[i + 1] === ' ') ? i : undefined;
  }
  for (; i < s.length; i++) {
    if (s[i] === ':' && (i + 1 === s.length || s[i + 1] === ' ')) return i;
    if (s[i] === '#' && i > from && s[i - 1] === ' ') return undefined;
  }
  return undefined;
}

/** Offset just after the closing quote of the quoted scalar starting at `i`, or undefined when it does not close on this line. */
function quotedEnd(s: string, i: number): number | undefined {
  const q = s[i];
  for (let j = i + 1; j < s.length; j++) {
    if (q === '"' && s[j] === '\\') {
      j++;
      continue;
    }
    if (s[j] === q) {
      if (q === "'" && s[j + 1] === "'") {
        j++;
        continue;
      }
      return j + 1;
    }
  }
  return undefined;
}

/** Scans a value from `p`; true when it is a block scalar header. */
function scanValue(s: string, p: number, found: Extent[], bare: boolean): boolean {
  while (s[p] === '&' || s[p] === '!') {
    while (p < s.length && s[p] !== ' ') p++;
    while (s[p] === ' ') p++;
  }
  if (p >= s.length) return false;
  const c = s[p]!;
  if (c === '#') {
    mark(s, p, s.length, 'comment', found);
    return false;
  }
  if (c === '|' || c === '>') {
    mark(s, p, s.length, 'comment', found);
    return true;
  }
  if (c === '"' || c === "'") {
    const end = quotedEnd(s, p) ?? s.length;
    if (hasOutput(s, p, end)) found.push({ start: p, end, context: c === '"' ? 'double' : 'single' });
    mark(s, end, s.length, 'comment', found);
    return false;
  }
  if (c === '[' || c === '{') {
    scanFlow(s, p, found);
    return false;
  }
  let end = s.length;
  const comment = s.indexOf(' #', p);
  if (comment >= 0) end = comment;
  end = trimEnd(s, p, end);
  if (hasOutput(s, p, end)) found.push({ start: p, end, context: bare && p === firstNonSpace(s) && end === trimEnd(s, 0, s.length) ? 'line' : 'plain' });
  mark(s, end, s.length, 'comment', found);
  return false;
}

function firstNonSpace(s: string): number {
  return s.length - s.replace(/^ +/, '').length;
}

/** Where a plain scalar inside a flow collection ends: `,` `]` `}`, `: `, or a comment. */
function flowScalarEnd(s: string, j: number): boolean {
  const c = s[j];
  if (c === ',' || c === ']' || c === '}') return true;
  if (c === ':') return s[j + 1] === ' ' || s[j + 1] === undefined;
  return c === '#' && s[j - 1] === ' ';
}

/** Flow collections: each scalar item (or key) holding a marker is an extent. */
function scanFlow(s: string, p: number, found: Extent[]): void {
  let i = p;
  while (i < s.length) {
    const c = s[i]!;
    if ('[{]}, :'.includes(c)) {
      i++;
      continue;
    }
    if (c === '#' && s[i - 1] === ' ') {
      mark(s, i, s.length, 'comment', found);
      return;
    }
    if (c === '"' || c === "'") {
      const end = quotedEnd(s, i) ?? s.length;
      if (hasOutput(s, i, end)) found.push({ start: i, end, context: c === '"' ? 'double' : 'single' });
      i = end;
      continue;
    }
    let j = i;
    while (j < s.length && !flowScalarEnd(s, j)) j++;
    const end = trimEnd(s, i, j);
    if (hasOutput(s, i, end)) found.push({ start: i, end, context: 'plain' });
    i = Math.max(j, i + 1);
  }
}
