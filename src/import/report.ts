/**
 * The import report: every mapping decision and everything not translated, each with its location in the
 * source package. An import succeeds when it has no `error` finding; `untranslated` findings are reported
 * and the framework is still written (the concept has no Baton counterpart and was left out on purpose).
 */
export interface SourceLocation {
  /** Path relative to the imported package folder (or the file given on the command line). */
  file: string;
  /** 1-based; 0 when the finding concerns the whole file. */
  line: number;
  /** 1-based; 0 when unknown. */
  column: number;
}

/**
 * - `mapped`: a decision the importer took (what became what, and why), for the reviewer;
 * - `untranslated`: left out (no Baton counterpart, or scheduler-only); the result still works without it;
 * - `error`: the import cannot be trusted (bad input or a construct that must not be dropped silently).
 */
export type FindingLevel = 'mapped' | 'untranslated' | 'error';

export interface Finding {
  level: FindingLevel;
  /** Stable code, e.g. IMPORT_TASK_PIPE, IMPORT_TEMPLATE_SYNTAX. */
  code: string;
  at: SourceLocation;
  message: string;
}

export interface GeneratedFile {
  /** Path inside the framework version folder, e.g. `templates/statefulset.yaml.ejs`. */
  path: string;
  content: string;
}

export interface ImportResult {
  kind: 'kudo' | 'dcos';
  /** What was imported (the folder or file given). */
  source: string;
  framework: { name: string; version: string; appVersion: string };
  files: GeneratedFile[];
  findings: Finding[];
}

export function hasImportErrors(findings: readonly Finding[]): boolean {
  return findings.some((f) => f.level === 'error');
}

/** Collects findings while an importer walks a package. */
export class FindingLog {
  readonly findings: Finding[] = [];

  private readonly seen = new Set<string>();

  /** Records a finding once: the same finding at the same place (a shared resource set read twice) is kept once. */
  add(level: FindingLevel, code: string, at: SourceLocation, message: string): void {
    const key = `${level}|${code}|${at.file}|${at.line}|${at.column}|${message}`;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    this.findings.push({ level, code, at, message });
  }
  mapped(code: string, at: SourceLocation, message: string): void {
    this.add('mapped', code, at, message);
  }
  untranslated(code: string, at: SourceLocation, message: string): void {
    this.add('untranslated', code, at, message);
  }
  error(code: string, at: SourceLocation, message: string): void {
    this.add('error', code, at, message);
  }
  get failed(): boolean {
    return hasImportErrors(this.findings);
  }
}

export function fileLocation(file: string, line = 0, column = 0): SourceLocation {
  return { file, line, column };
}

/** 1-based line and column of a character offset in a text. */
export function locate(file: string, text: string, offset: number): SourceLocation {
  let line = 1;
  let lineStart = 0;
  const end = Math.min(Math.max(offset, 0), text.length);
  for (let i = 0; i < end; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { file, line, column: end - lineStart + 1 };
}

/** Findings sorted by file, line, column, so reports read top to bottom. */
export function sortFindings(findings: readonly Finding[]): Finding[] {
  const order: Record<FindingLevel, number> = { error: 0, untranslated: 1, mapped: 2 };
  return [...findings].sort(
    (a, b) => order[a.level] - order[b.level] || a.at.file.localeCompare(b.at.file) || a.at.line - b.at.line || a.at.column - b.at.column,
  );
}
