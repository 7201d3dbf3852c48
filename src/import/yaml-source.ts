/**
 * Reads a YAML file of an imported package with positions, so every finding about it can name the line
 * and column of the node it concerns. Syntax errors (and duplicate keys) become `error` findings.
 */
import { isMap, isSeq, LineCounter, parseDocument, type Document } from 'yaml';
import { locate, type FindingLog, type SourceLocation } from './report.js';

export interface YamlSource {
  file: string;
  value: unknown;
  /** Location of the node at `path` (the nearest existing ancestor when it does not exist). */
  at(path: readonly (string | number)[]): SourceLocation;
}

/** For YAML produced from a template: the template's text and where each offset of the YAML came from. */
export interface Origin {
  text: string;
  source(offset: number): number;
}

export function parseYamlSource(file: string, text: string, log: FindingLog, origin?: Origin): YamlSource | undefined {
  const lines = new LineCounter();
  const where = (offset: number): SourceLocation => {
    if (origin) return locate(file, origin.text, origin.source(offset));
    const pos = lines.linePos(offset);
    return { file, line: pos.line, column: pos.col };
  };
  const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: true, prettyErrors: false });
  if (doc.errors.length > 0) {
    for (const e of doc.errors) log.error('IMPORT_YAML_SYNTAX', where(e.pos[0]), `malformed YAML: ${e.message.split('\n')[0] ?? ''}`);
    return undefined;
  }
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: 100 });
  } catch (err) {
    log.error('IMPORT_YAML_SYNTAX', { file, line: 0, column: 0 }, `malformed YAML: ${err instanceof Error ? err.message : String(err)}`);
    return undefined;
  }
  return { file, value, at: (path) => nodeLocation(doc, file, path, where) };
}

function nodeLocation(doc: Document, file: string, path: readonly (string | number)[], where: (offset: number) => SourceLocation): SourceLocation {
  for (let n = path.length; n >= 0; n--) {
    const node = n === 0 ? doc.contents : doc.getIn(path.slice(0, n), true);
    const range = (node as { range?: [number, number, number] } | null | undefined)?.range;
    if (range) {
      // For a map entry, point at the key rather than the value.
      const parent = n > 0 ? (n === 1 ? doc.contents : doc.getIn(path.slice(0, n - 1), true)) : undefined;
      let offset = range[0];
      if (isMap(parent)) {
        const pair = parent.items.find((p) => (p.key as { value?: unknown } | null)?.value === path[n - 1]);
        const keyRange = (pair?.key as { range?: [number, number, number] } | null)?.range;
        if (keyRange) offset = keyRange[0];
      } else if (isSeq(parent)) offset = range[0];
      return where(offset);
    }
  }
  return { file, line: 0, column: 0 };
}
