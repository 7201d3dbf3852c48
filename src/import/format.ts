/** The import report as text (terminals), Markdown (IMPORT.md, pull requests) or JSON (scripts). */
import { sortFindings, type Finding, type FindingLevel, type ImportResult } from './report.js';

export interface ImportOutcome {
  result: ImportResult;
  /** Repository-relative folder written, when something was written. */
  written?: string;
  /** Why nothing was written. */
  refused?: string;
}

const LABEL: Record<FindingLevel, string> = { error: 'error', untranslated: 'not translated', mapped: 'mapped' };
const HEADING: Record<FindingLevel, string> = { error: 'Errors', untranslated: 'Not translated', mapped: 'Mapping decisions' };

function where(f: Finding): string {
  return f.at.line > 0 ? `${f.at.file}:${f.at.line}:${f.at.column}` : f.at.file;
}

function counts(findings: readonly Finding[]): Record<FindingLevel, number> {
  const c: Record<FindingLevel, number> = { error: 0, untranslated: 0, mapped: 0 };
  for (const f of findings) c[f.level]++;
  return c;
}

function title(r: ImportResult): string {
  const fw = r.framework.name ? `framework ${r.framework.name} ${r.framework.version}${r.framework.appVersion ? ` (app ${r.framework.appVersion})` : ''}` : 'no framework';
  return `baton import ${r.kind} ${r.source} -> ${fw}`;
}

export function formatImportText(o: ImportOutcome): string {
  const r = o.result;
  const c = counts(r.findings);
  const lines = [title(r), `${c.error} error(s), ${c.untranslated} not translated, ${c.mapped} mapping decision(s)`, ''];
  for (const f of sortFindings(r.findings)) lines.push(`${where(f)}: ${LABEL[f.level]} ${f.code}: ${f.message}`);
  if (r.findings.length > 0) lines.push('');
  if (r.files.length > 0) lines.push(`files: ${r.files.map((f) => f.path).join(', ')}`);
  lines.push(o.written !== undefined ? `written: ${o.written}${c.error > 0 ? ' (with errors, --force)' : ''}` : `not written: ${o.refused ?? 'dry run'}`);
  return `${lines.join('\n')}\n`;
}

function cell(s: string): string {
  return s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

export function formatImportMarkdown(o: ImportOutcome): string {
  const r = o.result;
  const c = counts(r.findings);
  const out = [`# Import report: ${r.framework.name || r.source} ${r.framework.version}`, '', `\`${title(r)}\``, ''];
  out.push(`${c.error} error(s), ${c.untranslated} not translated, ${c.mapped} mapping decision(s).`, '');
  const sorted = sortFindings(r.findings);
  for (const level of ['error', 'untranslated', 'mapped'] as const) {
    const fs = sorted.filter((f) => f.level === level);
    if (fs.length === 0) continue;
    out.push(`## ${HEADING[level]}`, '', '| where | code | what |', '|---|---|---|');
    for (const f of fs) out.push(`| \`${cell(where(f))}\` | ${f.code} | ${cell(f.message)} |`);
    out.push('');
  }
  if (r.files.length > 0) out.push('## Files', '', ...r.files.map((f) => `- \`${f.path}\``), '');
  out.push(o.written !== undefined ? `Written to \`${o.written}\`${c.error > 0 ? ' with errors (--force)' : ''}.` : `Not written: ${o.refused ?? 'dry run'}.`);
  return `${out.join('\n')}\n`;
}

export function formatImportJson(o: ImportOutcome): string {
  const r = o.result;
  return `${JSON.stringify(
    {
      ok: !r.findings.some((f) => f.level === 'error'),
      kind: r.kind,
      source: r.source,
      framework: r.framework,
      written: o.written ?? null,
      refused: o.refused ?? null,
      files: r.files.map((f) => f.path),
      findings: sortFindings(r.findings),
    },
    null,
    2,
  )}\n`;
}
