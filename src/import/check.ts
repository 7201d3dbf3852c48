/**
 * Checks an import as `baton validate` would, before anything is written: the generated framework is put
 * in an in-memory repository and validated (schemas, references, every plan rendered with defaults).
 * With the target repository given, its other frameworks are visible beneath the import, so an `Instance`
 * task (a KUDO `KudoOperator`) finds the child framework that was imported before it.
 * Validation errors become `error` findings; warnings become notes, located in the generated files.
 */
import { DirectoryTree, MemoryTree, validateFramework, type FileTree, type Renderer, type TreeEntry } from '../render/index.js';
import type { ImportResult } from './report.js';
import { targetFolder } from './write.js';

/** The import's files over the repository's, with the repository's copy of the imported version hidden. */
class ImportOverlay implements FileTree {
  constructor(
    private readonly top: MemoryTree,
    private readonly base: FileTree,
    private readonly hidden: string,
  ) {}

  private visible(path: string): boolean {
    return path !== this.hidden && !path.startsWith(`${this.hidden}/`);
  }

  async read(path: string): Promise<Uint8Array | undefined> {
    return (await this.top.read(path)) ?? (this.visible(path) ? this.base.read(path) : undefined);
  }

  async list(dir: string): Promise<TreeEntry[]> {
    const entries = new Map((await this.top.list(dir)).map((e) => [e.name, e]));
    for (const e of await this.base.list(dir)) {
      const path = dir === '' ? e.name : `${dir}/${e.name}`;
      if (!entries.has(e.name) && this.visible(path)) entries.set(e.name, e);
    }
    return [...entries.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }
}

export async function checkImport(result: ImportResult, renderer: Renderer, repo?: string): Promise<void> {
  if (result.framework.name === '' || result.files.length === 0) return;
  const dir = targetFolder(result);
  const files = new MemoryTree(Object.fromEntries(result.files.map((f) => [`${dir}/${f.path}`, f.content])));
  const tree = repo === undefined ? files : new ImportOverlay(files, new DirectoryTree(repo), dir);
  const problems = await validateFramework(tree, result.framework.name, result.framework.version, renderer);
  for (const p of problems) {
    result.findings.push({
      level: p.severity === 'error' ? 'error' : 'mapped',
      code: `VALIDATE_${p.code}`,
      at: { file: p.file, line: p.line, column: p.column },
      message: `baton validate: ${p.message}`,
    });
  }
}
