/**
 * The files of a package being imported, read into memory first so the importers compute without I/O
 * (and tests can pass in-memory packages).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

export interface PackageFiles {
  /** The folder or file as the user named it, for the report. */
  source: string;
  /** Paths relative to the package root, with "/" separators -> text. */
  files: Map<string, string>;
}

const MAX_FILES = 2000;
const MAX_BYTES = 8 * 1024 * 1024;

/** Reads every regular file under `dir` (skipping .git); refuses packages that are implausibly large. */
export function readPackageDir(dir: string, source = dir): PackageFiles {
  const files = new Map<string, string>();
  let bytes = 0;
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.name === '.git') continue;
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) {
        bytes += statSync(p).size;
        if (files.size >= MAX_FILES || bytes > MAX_BYTES) throw new Error(`${source}: more than ${MAX_FILES} files or ${MAX_BYTES} bytes; is this a package folder?`);
        files.set(relative(dir, p).split(sep).join('/'), readFileSync(p, 'utf8'));
      }
    }
  };
  walk(dir);
  return { source, files };
}
