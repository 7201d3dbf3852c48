/**
 * Reads commits with their full messages from the mirror with `git log` (fast for long histories,
 * unlike walking commits with isomorphic-git). Fields are split on ASCII unit/record separators.
 */
import type { GitMirror } from './mirror.js';

export interface LogEntry {
  sha: string;
  /** ISO-8601 committer date. */
  date: string;
  author: string;
  message: string;
}

export interface LogQuery {
  ref: string;
  /** Only commits touching these paths. */
  paths?: string[];
  /** Passed to `git log --since` (e.g. `2 days ago`, an ISO date). */
  since?: string;
  /** Only commits whose message matches (git --grep, fixed string). */
  grep?: string;
  limit?: number;
}

const FIELD = '\x1f';
const RECORD = '\x1e';

export async function readLog(mirror: GitMirror, query: LogQuery): Promise<LogEntry[]> {
  const args = ['log', `--format=%H${FIELD}%cI${FIELD}%an${FIELD}%B${RECORD}`];
  if (query.limit !== undefined) args.push(`--max-count=${query.limit}`);
  if (query.since !== undefined) args.push(`--since=${query.since}`);
  if (query.grep !== undefined) args.push('--fixed-strings', `--grep=${query.grep}`);
  args.push(query.ref, '--');
  if (query.paths) args.push(...query.paths);
  const out = await mirror.read(args);
  const entries: LogEntry[] = [];
  for (const record of out.split(RECORD)) {
    const trimmed = record.replace(/^\n+/, '');
    if (trimmed === '') continue;
    const [sha = '', date = '', author = '', message = ''] = trimmed.split(FIELD);
    entries.push({ sha, date, author, message: message.trimEnd() });
  }
  return entries;
}
