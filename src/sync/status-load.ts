/** Reading the status files of a commit (what was recorded), for all instances or the ones asked for. */
import type { CommitTree } from '../git/tree.js';
import { errorMessage } from '../errors.js';
import { parseStatus, type InstanceStatus } from './status-file.js';

/**
 * Every `status/<namespace>/<name>.yaml` of `tree` whose `namespace/name` `want` accepts, parsed; a file
 * that does not parse is logged and skipped. Unwanted files are not read at all (a shard member reads
 * only its share).
 */
export async function readStatusFiles(tree: CommitTree, want: (id: string) => boolean, warn: (message: string) => void): Promise<InstanceStatus[]> {
  const out: InstanceStatus[] = [];
  for (const ns of await tree.list('status')) {
    if (ns.type !== 'dir') continue;
    for (const f of await tree.list(`status/${ns.name}`)) {
      if (!f.name.endsWith('.yaml') || !want(`${ns.name}/${f.name.slice(0, -'.yaml'.length)}`)) continue;
      const path = `status/${ns.name}/${f.name}`;
      try {
        out.push(parseStatus((await tree.readText(path)) ?? '', path));
      } catch (err) {
        warn(`ignoring ${path}: ${errorMessage(err)}`);
      }
    }
  }
  return out;
}
