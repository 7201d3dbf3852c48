/**
 * The operations history: status commits read back from `git log` through their trailers, one entry
 * per transition (a commit records one, or several in trailer blocks: status-message.ts). Commits
 * without Baton trailers (people's changes) are skipped; the newest entry comes first.
 */
import type { GitMirror } from '../git/mirror.js';
import { readLog } from '../git/log.js';
import { trailer } from '../git/trailers.js';
import { transitionsOfMessage } from './status-message.js';
import { TRAILER } from './trailers.js';

export interface HistoryEntry {
  commit: string;
  date: string;
  author: string;
  summary: string;
  instance: string;
  plan?: string;
  event?: string;
  result?: string;
  sourceCommit?: string;
  runId?: string;
  /** Sync and health recorded with the transition (apart from the plan's result). */
  sync?: string;
  health?: string;
  /** Drifted objects a drift check found or a repair re-applied. */
  driftObjects?: string[];
  /** Pods a pod action acted on, and who asked for it. */
  pods?: string[];
  requestedBy?: string;
}

export interface HistoryQuery {
  ref: string;
  /** `namespace/name`, or a bare name matching any namespace. */
  instance?: string;
  /** Anything `git log --since` accepts: `2h`, `2 days ago`, an ISO date. */
  since?: string;
  limit?: number;
}

export async function readHistory(mirror: GitMirror, query: HistoryQuery): Promise<HistoryEntry[]> {
  const paths = query.instance === undefined ? ['status'] : query.instance.includes('/') ? [`status/${query.instance}.yaml`] : [`:(glob)status/*/${query.instance}.yaml`];
  const log = await readLog(mirror, { ref: query.ref, paths, ...(query.since !== undefined ? { since: normaliseSince(query.since) } : {}), ...(query.limit !== undefined ? { limit: query.limit } : {}) });
  const out: HistoryEntry[] = [];
  for (const entry of log) {
    // A commit of several transitions touches other instances' files too: keep the asked one's.
    for (const { summary, trailers } of transitionsOfMessage(entry.message).reverse()) {
      const instance = trailer(trailers, TRAILER.instance);
      if (instance === undefined || !matches(instance, query.instance)) continue;
      const opt = (key: string, value: string | undefined): Record<string, string> => (value === undefined ? {} : { [key]: value });
      out.push({
        commit: entry.sha,
        date: entry.date,
        author: entry.author,
        summary,
        instance,
        ...opt('plan', trailer(trailers, TRAILER.plan)),
        ...opt('event', trailer(trailers, TRAILER.event)),
        ...opt('result', trailer(trailers, TRAILER.result)),
        ...opt('sourceCommit', trailer(trailers, TRAILER.sourceCommit)),
        ...opt('runId', trailer(trailers, TRAILER.runId)),
        ...opt('sync', trailer(trailers, TRAILER.sync)),
        ...opt('health', trailer(trailers, TRAILER.health)),
        ...(trailers.has(TRAILER.driftObject) ? { driftObjects: trailers.get(TRAILER.driftObject) ?? [] } : {}),
        ...(trailers.has(TRAILER.pod) ? { pods: trailers.get(TRAILER.pod) ?? [] } : {}),
        ...opt('requestedBy', trailer(trailers, TRAILER.requestedBy)),
      });
    }
  }
  // git's limit counts commits; each gave at least one entry, so the first `limit` entries are these.
  return query.limit === undefined ? out : out.slice(0, query.limit);
}

/** `namespace/name` is that instance; a bare name matches it in any namespace. */
function matches(instance: string, asked: string | undefined): boolean {
  if (asked === undefined) return true;
  return asked.includes('/') ? instance === asked : instance.endsWith(`/${asked}`);
}

/** `30m`, `2h`, `7d` become git's `30 minutes ago` etc.; anything else is passed through. */
export function normaliseSince(since: string): string {
  const m = /^(\d+)\s*([smhdw])$/.exec(since.trim());
  if (!m) return since;
  const unit = { s: 'seconds', m: 'minutes', h: 'hours', d: 'days', w: 'weeks' }[m[2] as 's' | 'm' | 'h' | 'd' | 'w'];
  return `${m[1] ?? '0'} ${unit} ago`;
}
