/**
 * The repository Baton ships for `baton init` and the demo: repo-template/ (baton.yaml, sample instances,
 * CI definitions, README) plus the catalog, which lives once in frameworks/ and is copied in as the new
 * repository's frameworks/ (repo-template/ has no copy of its own to drift).
 */
import { existsSync } from 'node:fs';
import { cp } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The installation root holding repo-template/ and frameworks/ (works from src/ and dist/). */
export function installationRoot(): string | undefined {
  for (let dir = dirname(fileURLToPath(import.meta.url)); dirname(dir) !== dir; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'repo-template')) && existsSync(join(dir, 'frameworks'))) return dir;
  }
  return undefined;
}

/** Copies repo-template/ and the catalog into `target` (which must be empty or absent); never overwrites. */
export async function copyTemplateRepository(root: string, target: string): Promise<void> {
  await cp(join(root, 'repo-template'), target, { recursive: true, errorOnExist: true, force: false });
  await cp(join(root, 'frameworks'), join(target, 'frameworks'), { recursive: true, errorOnExist: true, force: false });
}
