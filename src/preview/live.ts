/**
 * The difference against the live cluster: each object is applied with a server-side dry run (as the
 * engine would apply it, field manager `baton`) and compared with what the cluster holds now.
 * Server-managed metadata is left out of both sides so only meaningful changes show.
 */
import jsYaml from 'js-yaml';
import { errorMessage } from '../errors.js';
import type { KubeClient } from '../kube/client.js';
import { type KubeObject, refLabel, refOf } from '../kube/object.js';
import { unifiedDiff, type Masker } from './object-diff.js';
import type { LiveChange } from './types.js';

const SERVER_METADATA = ['managedFields', 'resourceVersion', 'generation', 'uid', 'creationTimestamp'];

function comparable(obj: KubeObject, mask: Masker): string {
  const copy = structuredClone(obj);
  for (const key of SERVER_METADATA) delete copy.metadata[key];
  delete copy.status;
  return mask(jsYaml.dump(copy, { noRefs: true, lineWidth: -1 }));
}

export async function liveChanges(client: KubeClient, objects: KubeObject[], mask: Masker): Promise<LiveChange[]> {
  const out: LiveChange[] = [];
  for (const obj of objects) {
    const ref = refOf(obj);
    try {
      const live = await client.get(ref);
      if (!live) {
        out.push({ change: 'create', ref });
        continue;
      }
      const dry = await client.apply(structuredClone(obj), { fieldManager: 'baton', dryRun: true });
      const before = comparable(live, mask);
      const after = comparable(dry, mask);
      out.push(before === after ? { change: 'unchanged', ref } : { change: 'update', ref, diff: unifiedDiff(refLabel(ref), before, after) });
    } catch (err) {
      out.push({ change: 'error', ref, message: mask(errorMessage(err)) });
    }
  }
  return out;
}
