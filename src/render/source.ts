/**
 * User-written YAML files, parsed with eemeli/yaml so every problem can point at a line, a column and
 * a YAML path (and alias bombs are refused by the parser). Schema issues from zod become Problems here.
 */
import { LineCounter, isMap, isNode, isPair, isScalar, isSeq, parseDocument, type Document, type Node } from 'yaml';
import type { z } from 'zod';
import { problem, type Problem } from './problems.js';

export type YamlPath = (string | number)[];

export interface SourceFile {
  file: string;
  text: string;
  /** 1-based line and column of the node at `path`, or of its nearest existing ancestor. */
  locate(path: YamlPath, atKey?: boolean): { line: number; column: number };
}

export interface ParsedYaml extends SourceFile {
  /** The plain value; undefined when the file does not parse. */
  value: unknown;
  problems: Problem[];
}

export function parseYamlFile(file: string, text: string): ParsedYaml {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const pos = (offset: number): { line: number; column: number } => {
    const p = lineCounter.linePos(offset);
    return { line: p.line, column: p.col };
  };
  const problems: Problem[] = [];
  for (const [severity, list] of [['error', doc.errors], ['warning', doc.warnings]] as const) {
    for (const err of list) problems.push(problem({ code: 'YAML_SYNTAX', severity, file, ...pos(err.pos[0]), message: firstLine(err.message) }));
  }
  let value: unknown;
  if (!problems.some((p) => p.severity === 'error')) {
    try {
      value = doc.toJS({ maxAliasCount: 100 });
    } catch (err) {
      // toJS refuses alias bombs ("Excessive alias count") and similar.
      problems.push(problem({ code: 'YAML_ALIAS_LIMIT', file, line: 1, column: 1, message: firstLine(err instanceof Error ? err.message : String(err)) }));
    }
  }
  return { file, text, value, problems, locate: (path, atKey = false) => locateIn(doc, path, atKey, pos) };
}

function firstLine(message: string): string {
  return message.split('\n')[0] ?? message;
}

function locateIn(doc: Document, path: YamlPath, atKey: boolean, pos: (offset: number) => { line: number; column: number }): { line: number; column: number } {
  let node: unknown = doc.contents;
  let best: Node | undefined = isNode(node) ? node : undefined;
  let keyNode: Node | undefined;
  for (const segment of path) {
    keyNode = undefined;
    if (isMap(node)) {
      const pair = node.items.find((it) => isPair(it) && isScalar(it.key) && String(it.key.value) === String(segment));
      if (!pair) break;
      keyNode = isNode(pair.key) ? pair.key : undefined;
      node = pair.value;
    } else if (isSeq(node) && typeof segment === 'number') {
      node = node.items[segment];
    } else break;
    if (isNode(node)) best = node;
    else if (keyNode) best = keyNode;
    else break;
  }
  const target = atKey && keyNode ? keyNode : best;
  const offset = target?.range?.[0];
  return offset === undefined ? { line: 1, column: 1 } : pos(offset);
}

/** Turns zod issues into located Problems. Codes: SCHEMA_TYPE, SCHEMA_REQUIRED, SCHEMA_UNKNOWN_FIELD, SCHEMA_VALUE. */
export function schemaProblems(source: SourceFile, issues: readonly z.core.$ZodIssue[], prefix: YamlPath = []): Problem[] {
  const out: Problem[] = [];
  for (const issue of issues) {
    const path = [...prefix, ...issue.path.map((s) => (typeof s === 'symbol' ? String(s) : s))];
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        out.push(problem({ code: 'SCHEMA_UNKNOWN_FIELD', file: source.file, path: [...path, key], ...source.locate([...path, key], true), message: `unknown field "${key}"` }));
      }
      continue;
    }
    if (issue.code === 'invalid_union' && issue.errors.length > 0) {
      // A task's `kind` picks the variant; report the closest variant's issues rather than "invalid input".
      const best = [...issue.errors].sort((a, b) => a.length - b.length)[0] ?? [];
      out.push(...schemaProblems(source, best, path));
      continue;
    }
    const missing = issue.code === 'invalid_type' && /received undefined$/.test(issue.message);
    const code = missing ? 'SCHEMA_REQUIRED' : issue.code === 'invalid_type' ? 'SCHEMA_TYPE' : 'SCHEMA_VALUE';
    const field = path.length > 0 ? `"${path.join('.')}"` : 'the document';
    const message = missing ? `${field} is required` : `${field}: ${issue.message.replace(/^Invalid input: /, '')}`;
    out.push(problem({ code, file: source.file, path, ...source.locate(path, missing), message }));
  }
  // zod can report the same issue twice (e.g. through a default wrapper); report it once.
  const seen = new Set<string>();
  return out.filter((p) => {
    const key = `${p.code}|${p.path.join('.')}|${p.message}`;
    return seen.has(key) ? false : (seen.add(key), true);
  });
}
