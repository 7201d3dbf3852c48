/**
 * The message of a status commit, in the two forms every reader of the record understands
 * (docs/agent.md, "Commits: every transition once"):
 *
 * - **one transition**: its summary is the subject, its trailers the last paragraph (every commit of
 *   an agent that is not a shard member, and any commit that carries one transition);
 * - **several transitions** (a shard member with a backlog, see StatusWriter's
 *   `maxTransitionsPerCommit`): the subject says how many, and the last paragraph is one trailer block
 *   per transition, oldest first, each opened by `Baton-Transition: <its summary>`. Every block has
 *   the keys a one-transition commit has (`Baton-Instance`, `Baton-Event`, ..., `Baton-Status-File`).
 *
 * So each transition is recorded exactly once either way, and `git log --format=%(trailers:key=...)`
 * lists a commit's values of a key in the order of its transitions.
 */
import { formatMessage, groupTrailers, trailerLines, type Trailers } from '../git/trailers.js';
import { TRAILER } from './trailers.js';

/** Opens each transition's block in a commit of several transitions; its value is the transition's summary. */
export const TRANSITION_TRAILER = 'Baton-Transition';

export interface StatusMessageEntry {
  summary: string;
  body?: string;
  trailers: Trailers;
}

/** One transition as a status commit records it. */
export interface RecordedTransition {
  summary: string;
  /** Its trailers by key (values in order). */
  trailers: Map<string, string[]>;
}

/** The message of a commit recording `entries` (at least one), oldest first. */
export function formatStatusMessage(entries: readonly StatusMessageEntry[]): string {
  const [first] = entries;
  if (first === undefined) throw new RangeError('a status commit records at least one transition');
  if (entries.length === 1) return formatMessage(first.summary, first.body, first.trailers);
  const oneLine = (s: string): string => s.replace(/[\r\n]+/g, ' ').trim();
  const instances = new Set(entries.map((e) => e.trailers.find(([k]) => k === TRAILER.instance)?.[1] ?? e.summary));
  const subject = `status: ${entries.length} transitions of ${instances.size} instance${instances.size === 1 ? '' : 's'}`;
  const bodies = entries.filter((e) => e.body !== undefined && e.body.trim() !== '').map((e) => `${oneLine(e.summary)}\n${e.body?.trim() ?? ''}`);
  const trailers = entries.flatMap((e) => [[TRANSITION_TRAILER, e.summary] as const, ...e.trailers]);
  return formatMessage(subject, bodies.length > 0 ? bodies.join('\n\n') : undefined, trailers);
}

/**
 * The transitions a commit message records, oldest first: one per `Baton-Transition` block, or the
 * whole message as one (its subject the summary) when it has none. A commit without trailers gives one
 * transition with no trailers: callers skip what lacks the keys they need.
 */
export function transitionsOfMessage(message: string): RecordedTransition[] {
  const lines = trailerLines(message);
  if (!lines.some(([k]) => k === TRANSITION_TRAILER)) {
    return [{ summary: message.split('\n')[0] ?? '', trailers: groupTrailers(lines) }];
  }
  const out: RecordedTransition[] = [];
  let block: Array<[string, string]> | undefined;
  let summary = '';
  const close = (): void => { if (block !== undefined) out.push({ summary, trailers: groupTrailers(block) }); };
  for (const [key, value] of lines) {
    if (key === TRANSITION_TRAILER) {
      close();
      block = [];
      summary = value;
    } else {
      // Lines before the first block belong to no transition (none are written there).
      block?.push([key, value]);
    }
  }
  close();
  return out;
}
