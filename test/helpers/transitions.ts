/**
 * The history check of the audit record (STATUS-DESIGN part 1): read the status commits of a branch
 * from `git log` (oldest first; a commit records one transition or several, src/sync/status-message.ts),
 * group the transitions by `Baton-Run` and check, transition by transition:
 * exactly one `plan-started` per run, at most one end (complete, failed, superseded), nothing of a run
 * before its start or after its end, each phase completed at most once, runs of one instance never
 * interleaved, and every `Baton-Source-Commit` a commit of the branch that is not a status commit.
 */
import { execFileSync } from 'node:child_process';
import type { Checkpoint } from '../../src/plans/checkpoint.js';
import type { PlanRun } from '../../src/plans/state.js';
import { transitionsOfMessage } from '../../src/sync/status-message.js';

/** One transition recorded on the branch (`sha`: its commit, which may record others too). */
export interface TransitionCommit {
  sha: string;
  /** The transition's summary (the subject of a commit of one transition). */
  subject: string;
  instance: string;
  event: string;
  plan?: string;
  run?: string;
  phase?: string;
  sourceCommit?: string;
  leaseTerm?: string;
  author: string;
}

export interface HistoryCheck {
  commits: TransitionCommit[];
  /** Run id -> its transitions in order. */
  runs: Map<string, TransitionCommit[]>;
  defects: string[];
  /** Runs without a defect. */
  cleanRuns: number;
}

const END_EVENTS = new Set(['plan-complete', 'plan-failed', 'plan-superseded']);
const SEP = '\x1f';
const REC = '\x1e';

/** Every commit of `ref` in `gitDir`, oldest first, with the trailers the check needs. */
export function readTransitions(env: NodeJS.ProcessEnv, gitDir: string, ref = 'main'): { commits: TransitionCommit[]; all: Set<string>; statusCommits: Set<string> } {
  const out = execFileSync('git', ['--git-dir', gitDir, 'log', '--reverse', '--topo-order', `--format=%H${SEP}%an${SEP}%B${REC}`, ref], { env, encoding: 'utf8', maxBuffer: 1 << 28 });
  const commits: TransitionCommit[] = [];
  const all = new Set<string>();
  const statusCommits = new Set<string>();
  for (const record of out.split(REC)) {
    const text = record.replace(/^\n+/, '');
    if (text === '') continue;
    const [sha = '', author = '', message = ''] = text.split(SEP);
    all.add(sha);
    for (const recorded of transitionsOfMessage(message)) {
      const first = (key: string): string | undefined => recorded.trailers.get(key)?.[0];
      if (first('Baton-Status-File') === undefined) continue;
      statusCommits.add(sha);
      const instance = first('Baton-Instance');
      const event = first('Baton-Event');
      if (instance === undefined || event === undefined) continue;
      const subject = recorded.summary;
      const phase = / phase (\S+) complete$/.exec(subject)?.[1];
      commits.push({
        sha, subject, instance, event, author,
        ...opt('plan', first('Baton-Plan')), ...opt('run', first('Baton-Run')), ...opt('phase', phase),
        ...opt('sourceCommit', first('Baton-Source-Commit')), ...opt('leaseTerm', first('Baton-Lease-Term')),
      });
    }
  }
  return { commits, all, statusCommits };
}

function opt<K extends string>(key: K, value: string | undefined): Partial<Record<K, string>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, string>);
}

/** Checks the audit record of `ref` (see the file comment), of every instance or of the ones named. */
export function checkHistory(env: NodeJS.ProcessEnv, gitDir: string, options: { ref?: string; instances?: readonly string[] } = {}): HistoryCheck {
  const read = readTransitions(env, gitDir, options.ref ?? 'main');
  const { all, statusCommits } = read;
  const commits = options.instances === undefined ? read.commits : read.commits.filter((c) => options.instances?.includes(c.instance) === true);
  const defects: string[] = [];
  const runs = new Map<string, TransitionCommit[]>();
  const bad = new Set<string>();
  const defect = (run: string | undefined, text: string): void => {
    defects.push(text);
    if (run !== undefined) bad.add(run);
  };
  /** Per instance, the run that started last: an earlier run must not record anything after it. */
  const lastRunOf = new Map<string, string>();
  const finished = new Set<string>();
  for (const c of commits) {
    const where = `${c.sha.slice(0, 10)} "${c.subject}"`;
    if (c.sourceCommit !== undefined && (!all.has(c.sourceCommit) || statusCommits.has(c.sourceCommit))) {
      defect(c.run, `${where}: Baton-Source-Commit ${c.sourceCommit.slice(0, 10)} is ${all.has(c.sourceCommit) ? "one of the agent's status commits" : 'not a commit of the branch'}`);
    }
    if (c.run === undefined) continue;
    const list = runs.get(c.run) ?? [];
    const isTransition = c.event === 'plan-started' || c.event === 'phase-complete' || END_EVENTS.has(c.event);
    if (!isTransition) continue;
    list.push(c);
    runs.set(c.run, list);
    if (c.event === 'plan-started') {
      if (list.length > 1) defect(c.run, `${where}: run ${c.run} started again (${list.filter((x) => x.event === 'plan-started').length} starts)`);
      // A run may start while an earlier one has no end (an instance removed mid-plan); what the
      // earlier run records after this point is a defect (checked below).
      lastRunOf.set(c.instance, c.run);
      continue;
    }
    if (list[0]?.event !== 'plan-started') defect(c.run, `${where}: run ${c.run} recorded ${c.event} before it started`);
    if (finished.has(c.run)) defect(c.run, `${where}: run ${c.run} recorded ${c.event} after its end`);
    if (lastRunOf.get(c.instance) !== c.run) defect(c.run, `${where}: run ${c.run} of ${c.instance} recorded ${c.event} after a later run started`);
    if (c.event === 'phase-complete' && list.filter((x) => x.event === 'phase-complete' && x.phase === c.phase).length > 1) {
      defect(c.run, `${where}: phase ${c.phase ?? '?'} of run ${c.run} completed twice`);
    }
    if (END_EVENTS.has(c.event)) finished.add(c.run);
  }
  return { commits, runs, defects, cleanRuns: [...runs.keys()].filter((r) => !bad.has(r)).length };
}

/**
 * Compares the record with the engine's checkpoint of one instance (the source of truth): every run
 * the checkpoint knows that started has its start in Git, a finished one its end (COMPLETE as
 * plan-complete, FATAL_ERROR as plan-failed), an unfinished one in the history (superseded by a newer
 * run) its plan-superseded, and every completed phase its phase-complete.
 */
export function checkAgainstCheckpoint(check: HistoryCheck, checkpoint: Checkpoint | undefined): string[] {
  if (checkpoint === undefined) return [];
  const who = `${checkpoint.instance.namespace}/${checkpoint.instance.name}`;
  const defects: string[] = [];
  const expectRun = (run: PlanRun, archived: boolean): void => {
    if (run.state.status === 'PENDING' || run.state.status === 'NEVER_RUN') return;
    const events = (check.runs.get(run.id) ?? []).map((t) => t.event);
    const count = (e: string): number => events.filter((x) => x === e).length;
    if (count('plan-started') !== 1) defects.push(`${who}: run ${run.id} (${run.plan}) has ${count('plan-started')} plan-started in Git`);
    const end = run.state.status === 'COMPLETE' ? 'plan-complete' : run.state.status === 'FATAL_ERROR' ? 'plan-failed' : archived ? 'plan-superseded' : undefined;
    if (end !== undefined && count(end) !== 1) defects.push(`${who}: run ${run.id} (${run.plan}) is ${run.state.status}${archived ? ' in the history' : ''} but has ${count(end)} ${end} in Git`);
    for (const phase of run.phases) {
      if (phase.state.status !== 'COMPLETE') continue;
      const n = (check.runs.get(run.id) ?? []).filter((t) => t.event === 'phase-complete' && t.phase === phase.name).length;
      if (n !== 1) defects.push(`${who}: phase ${phase.name} of run ${run.id} is COMPLETE but has ${n} phase-complete in Git`);
    }
  };
  if (checkpoint.active) expectRun(checkpoint.active, false);
  for (const run of checkpoint.history) expectRun(run, true);
  return defects;
}
