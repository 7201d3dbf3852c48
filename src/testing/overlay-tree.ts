/** A FileTree that shows some files (a test case's instance file) over another tree (the repository). */
import { MemoryTree, type FileTree, type TreeEntry } from '../render/index.js';

export class OverlayTree implements FileTree {
  readonly top = new MemoryTree();

  constructor(private readonly base: FileTree) {}

  async read(path: string): Promise<Uint8Array | undefined> {
    return (await this.top.read(path)) ?? this.base.read(path);
  }

  async list(dir: string): Promise<TreeEntry[]> {
    const merged = new Map<string, TreeEntry>();
    for (const e of await this.base.list(dir)) merged.set(e.name, e);
    for (const e of await this.top.list(dir)) merged.set(e.name, e);
    return [...merged.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }
}
