/**
 * Writes an imported framework version into a repository, all or nothing: the files go to a temporary
 * folder beside the target and are renamed into place in one step, so a failed or refused import leaves
 * the repository as it was. A version that exists is never changed without `force` (a published
 * version should not change; import a newer operator version instead).
 */
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { BatonError } from '../errors.js';
import { compareSemver } from '../render/versions.js';
import type { ImportResult } from './report.js';
import { hasImportErrors } from './report.js';

export class ImportRefusedError extends BatonError {
  constructor(message: string, context: Record<string, unknown> = {}) {
    super('IMPORT_REFUSED', message, context);
  }
}

export interface WriteOptions {
  /** Write although the import has errors, or replace an existing version. */
  force?: boolean;
  /** The report written beside the framework as IMPORT.md. */
  reportMarkdown: string;
}

/** The repository-relative folder of the version: `frameworks/<name>/<version>`. */
export function targetFolder(result: ImportResult): string {
  return `frameworks/${result.framework.name}/${result.framework.version}`;
}

/** Why the import may not be written, or undefined when it may. */
export function refusal(result: ImportResult, repo: string, force: boolean): string | undefined {
  if (result.framework.name === '' || result.files.length === 0) return 'the import produced no framework';
  if (hasImportErrors(result.findings) && !force) return 'the import has errors (fix them, or pass --force to write it with the report)';
  if (!existsSync(repo)) return `repository ${repo} does not exist`;
  if (existsSync(join(repo, targetFolder(result))) && !force) {
    return `${targetFolder(result)} exists: a published version should not change (import a newer operator version, or pass --force to replace it)`;
  }
  return undefined;
}

/** Versions of the framework already in the repository, newest first. */
export function existingVersions(repo: string, name: string): string[] {
  const dir = join(repo, 'frameworks', name);
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && !e.name.startsWith('.'))
    .map((e) => e.name)
    .sort((a, b) => compareSemver(b, a));
}

export function writeImport(result: ImportResult, repo: string, options: WriteOptions): string {
  const why = refusal(result, repo, options.force === true);
  if (why !== undefined) throw new ImportRefusedError(why, { framework: result.framework });
  const rel = targetFolder(result);
  const target = join(repo, rel);
  mkdirSync(dirname(target), { recursive: true });
  const staging = mkdtempSync(join(dirname(target), '.import-'));
  try {
    for (const f of [...result.files, { path: 'IMPORT.md', content: options.reportMarkdown }]) {
      const p = join(staging, f.path);
      mkdirSync(dirname(p), { recursive: true });
      writeFileSync(p, f.content);
    }
    if (existsSync(target)) {
      const old = `${staging}.old`;
      renameSync(target, old);
      renameSync(staging, target);
      rmSync(old, { recursive: true, force: true });
    } else renameSync(staging, target);
  } catch (err) {
    rmSync(staging, { recursive: true, force: true });
    throw err;
  }
  return rel;
}
