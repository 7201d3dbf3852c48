/**
 * The scale bench's count of completed steps applied again after a shard member is killed (issue
 * #20: "no completed step re-run"), from what the agents' recording proxies saw. Pure, so that the
 * count itself is tested (test/shards/rerun-count.test.ts).
 */
import type { RecordedRequest } from '../test/helpers/recording-proxy.js';

const round1 = (x: number): number => Math.round(x * 10) / 10;

export interface Snapshot {
  /** Per instance (`namespace/name`), the names of its active run's COMPLETE steps. */
  steps: Map<string, Set<string>>;
  /** Date.now() when the list's answer was in: an apply recorded after it came after the read. */
  readAt: number;
}

export interface Rerun {
  /** Seconds from the kill until the checkpoints were read (applies before that are not counted). */
  snapshotReadSeconds: number;
  /** Instances whose checkpoint the killed member wrote last before the kill: its share, taken over. */
  victimInstances: number;
  /** Real (not dry-run) applies after the kill of steps COMPLETE at the kill, of the victim's instances. */
  victimApplies: number;
  /** The same for the survivors' own instances (they kept running; should be 0). */
  otherApplies: number;
  /** Server-side dry-run applies (`?dryRun=All`, the drift check) of completed steps' objects: not applies. */
  dryRuns: number;
  /** Objects of completed steps PATCHed in any way after the read, all instances (how `rerunSteps` counted before 2026-11-24). */
  anyPatchObjects: number;
  /** A few of the real applies: path, seconds after the kill, the proxy's agent. */
  samples: string[];
}

/**
 * PATCHes to a ConfigMap or Deployment of an instance whose step (`config` or `app`, the bench's small
 * framework) was COMPLETE in its checkpoint as read after the kill, recorded after that read, told
 * apart: real applies vs dry runs (the drift check's confirmation, `?dryRun=All`, persists nothing),
 * and the victim's instances (the ones taken over) vs the survivors' own. `agents`: each agent's
 * recorded requests; `victim`: the index of the killed one.
 */
export function rerunAfterKill(agents: readonly (readonly RecordedRequest[])[], victim: number, killedAt: number,
  keys: readonly { namespace: string; name: string }[], snapshot: Snapshot): Rerun {
  // The victim's share: instances whose checkpoint it wrote last before the kill.
  const lastWriter = new Map<string, { at: number; agent: number }>();
  agents.forEach((requests, agent) => {
    for (const r of requests) {
      const m = /^\/api\/v1\/namespaces\/([^/]+)\/configmaps\/baton-checkpoint-([^/?]+)/.exec(r.path);
      if (m === null || r.method === 'GET' || r.at >= killedAt) continue;
      const key = `${m[1]}/${m[2]}`;
      if ((lastWriter.get(key)?.at ?? -1) <= r.at) lastWriter.set(key, { at: r.at, agent });
    }
  });
  const victims = new Set([...lastWriter].filter(([, w]) => w.agent === victim).map(([key]) => key));
  const stepOf = new Map<string, { key: string; step: string }>();
  for (const k of keys) {
    stepOf.set(`/api/v1/namespaces/${k.namespace}/configmaps/${k.name}`, { key: `${k.namespace}/${k.name}`, step: 'config' });
    stepOf.set(`/apis/apps/v1/namespaces/${k.namespace}/deployments/${k.name}`, { key: `${k.namespace}/${k.name}`, step: 'app' });
  }
  const out: Rerun = { snapshotReadSeconds: round1((snapshot.readAt - killedAt) / 1000), victimInstances: victims.size, victimApplies: 0, otherApplies: 0, dryRuns: 0, anyPatchObjects: 0, samples: [] };
  const patched = new Set<string>();
  agents.forEach((requests, agent) => {
    for (const r of requests) {
      if (r.method !== 'PATCH' || r.at < snapshot.readAt) continue;
      const [path = '', query = ''] = r.path.split('?');
      const hit = stepOf.get(path);
      if (hit === undefined || !(snapshot.steps.get(hit.key)?.has(hit.step) ?? false)) continue;
      patched.add(path);
      if (/(^|&)dryRun=/.test(query)) {
        out.dryRuns++;
        continue;
      }
      const mine = victims.has(hit.key);
      if (mine) out.victimApplies++;
      else out.otherApplies++;
      if (out.samples.length < 8) out.samples.push(`${path} +${((r.at - killedAt) / 1000).toFixed(1)} s agent-${agent}${mine ? '' : ' (not the victim\'s)'}`);
    }
  });
  out.anyPatchObjects = patched.size;
  return out;
}
