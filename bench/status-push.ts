/**
 * `npm run bench -- status-push [--writers 4] [--transitions 300] [--rate 8] [--instances 2000] [--backlog 3000] [--hold-ms 5000]`
 * The status push path of a shard set alone (issue #20): `--writers` status writers, each with its
 * own bare clone (as each member has) and the agent's settings for shard members (up to 64 transitions
 * a commit, cheap packs, the yield to the others), push to one bare repository on the local file
 * system (as the scale bench's origin). Each writer submits `--transitions` transitions at `--rate` per
 * second (a member with 16 plans running records a few per second), spread over `--instances` status
 * files in 20 namespaces.
 *
 * Rounds, in one run: `alone` (one writer submitting all the transitions at the summed rate, no
 * contention), then the writers racing without turns (`contended`, what shard members did before push
 * turns) and taking turns on a push turn Lease (`turns`, src/sync/push-turn/, on a simulated API
 * server in its own process), then the same two with a backlog: writer 0 starts with `--backlog`
 * transitions queued at once (a member that lost races for minutes had ~3,000). Per round: seconds until
 * every transition is on the branch, pushes and rejected pushes, where the writers' time went, and per
 * writer the time from submit to on the branch (max and p99, seconds: includes the 1 s coalescing
 * window) and its rejected pushes. `contendedVsAlone` and `turnsVsAlone`: the ratios of the times.
 * `BENCH_TRACE2=DIR` in the environment makes every git process write its trace2 timings (perf format,
 * one file per process) into DIR.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { numberArg } from './_args.js';
import { clusterProcess, kubeconfigServer, stopClusterProcess } from './_cluster.js';
import { benchWorkdir } from './_workdir.js';
import { GitMirror, ObjectStore } from '../src/git/index.js';
import { PUSH_PACK_CONFIG } from '../src/git/mirror.js';
import { createKubeClient, type HttpKubeClient } from '../src/kube/http-client.js';
import { LeasePushTurn, pushTurnLeaseName } from '../src/sync/push-turn/index.js';
import { StatusWriter, type PushTimings } from '../src/sync/status-writer.js';
import { summaryOf, trailersOf, type Transition } from '../src/sync/trailers.js';

const git = (env: NodeJS.ProcessEnv, cwd: string, ...args: string[]): string => execFileSync('git', args, { cwd, env, encoding: 'utf8', maxBuffer: 1 << 30 }).trim();
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const SHARD_TRANSITIONS_PER_COMMIT = 64;

/** A mirror that reports each push that went through (the writer's committed transitions are then all on the branch). */
class ReportingMirror extends GitMirror {
  onPushed: () => void = () => undefined;
  override async push(sha: string, branch: string, config: readonly string[] = []): Promise<void> {
    await super.push(sha, branch, config);
    this.onPushed();
  }
}

interface WriterFigures { transitions: number; maxSeconds: number; p99Seconds: number; rejections: number; pushes: number }
interface Round { seconds: number; pushes: number; rejections: number; deferred: number; onBranch: number; timings: PushTimings; perWriter: WriterFigures[] }

const quantile = (xs: number[], q: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? 0 : s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)] ?? 0;
};
const r1 = (x: number): number => Math.round(x * 10) / 10;

interface RoundSpec { label: string; writers: number; perWriter: number; rate: number; instances: number; backlog: number; client?: HttpKubeClient; holdMs: number }

async function round(env: NodeJS.ProcessEnv, dir: string, origin: string, spec: RoundSpec): Promise<Round> {
  const { label, writers, perWriter, rate, instances, backlog, client } = spec;
  const turnName = pushTurnLeaseName(label);
  const members = await Promise.all(Array.from({ length: writers }, async (_, m) => {
    const mirror = new ReportingMirror({ dir: join(dir, `${label}-${m}`), remote: { url: origin, auth: { kind: 'none' } }, env });
    await mirror.init();
    await mirror.fetch('main');
    const ids = Array.from({ length: writers }, (_x, i) => `w${i}`);
    const turn = client === undefined ? undefined : new LeasePushTurn({ client, namespace: 'baton-system', name: turnName, memberId: `w${m}`, live: () => ids, holdMs: spec.holdMs });
    const writer = new StatusWriter({
      mirror, store: new ObjectStore(mirror.dir), branch: 'main', author: { name: `${label}-${m}`, email: `${label}${m}@example.com` },
      maxTransitionsPerCommit: SHARD_TRANSITIONS_PER_COMMIT, pushConfig: PUSH_PACK_CONFIG, pushers: () => writers, ...(turn ? { turn } : {}),
    });
    const submitted: number[] = [];
    const latencies: number[] = [];
    mirror.onPushed = () => {
      const now = performance.now();
      // Every transition committed is on the branch now: all submitted but those still queued.
      const committed = submitted.length - writer.queuedCount;
      while (latencies.length < committed) latencies.push((now - (submitted[latencies.length] ?? now)) / 1000);
    };
    return { writer, submitted, latencies, turn };
  }));
  const submit = (m: number, i: number): void => {
    const member = members[m];
    if (member === undefined) return;
    const n = (m * (perWriter + backlog) + i) % instances;
    const t: Transition = { instance: { namespace: `ns-${n % 20}`, name: `app-${n}` }, event: 'observed', result: 'COMPLETE', plan: 'deploy', sourceCommit: 'abc123' };
    member.submitted.push(performance.now());
    member.writer.submit({ path: `status/ns-${n % 20}/app-${n}.yaml`, content: `state: COMPLETE\nround: ${label}-${i}\n`, summary: `${summaryOf(t)} (${label}-${m} ${i})`, trailers: trailersOf(t) });
  };
  const started = performance.now();
  for (let i = 0; i < backlog; i++) submit(0, i);
  await Promise.all(members.map(async ({ writer }, m) => {
    for (let i = 0; i < perWriter; i++) {
      submit(m, (m === 0 ? backlog : 0) + i);
      await sleep(1000 / rate);
    }
    await writer.settle(900_000);
  }));
  const seconds = (performance.now() - started) / 1000;
  for (const { turn } of members) await turn?.leave();
  const onBranch = git(env, origin, 'log', '--format=%(trailers:key=Baton-Status-File,valueonly,separator=%x2C)', '--grep', `(${label}-`, 'main')
    .split(/[\n,]/).filter((s) => s.trim() !== '').length;
  const timings: PushTimings = { commitMs: 0, pushMs: 0, rejectedPushMs: 0, pauseMs: 0, fetchMs: 0, replayMs: 0, replayedCommits: 0, rejections: 0, turnWaitMs: 0, turns: 0 };
  for (const { writer } of members) for (const k of Object.keys(timings) as (keyof PushTimings)[]) timings[k] += writer.timings[k];
  for (const { writer } of members) writer.close();
  for (const k of Object.keys(timings) as (keyof PushTimings)[]) timings[k] = Math.round(timings[k]);
  const figures = members.map(({ writer, latencies }) => ({
    transitions: latencies.length, maxSeconds: r1(Math.max(0, ...latencies)), p99Seconds: r1(quantile(latencies, 0.99)), rejections: writer.timings.rejections, pushes: writer.pushes,
  }));
  return { seconds: r1(seconds), pushes: members.reduce((s, { writer }) => s + writer.pushes, 0), rejections: timings.rejections, deferred: members.reduce((s, { writer }) => s + writer.deferred, 0), onBranch, timings, perWriter: figures };
}

export async function run(args: string[]): Promise<Record<string, unknown>> {
  const writers = numberArg(args, 'writers', 4);
  const perWriter = numberArg(args, 'transitions', 300);
  const rate = numberArg(args, 'rate', 8);
  const instances = numberArg(args, 'instances', 2000);
  const backlog = numberArg(args, 'backlog', 3000);
  const holdMs = numberArg(args, 'hold-ms', 5000);
  const { dir, env } = benchWorkdir('push', process.env.BENCH_TRACE2 ? `[trace2]\n\tperfTarget = ${process.env.BENCH_TRACE2}\n` : '');
  const loadBefore = loadavg()[0] ?? 0;
  const cluster = await clusterProcess(join(dir, 'kubeconfig'));
  const client = await createKubeClient({ url: kubeconfigServer(join(dir, 'kubeconfig')) });
  try {
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'baton-system' } });
    const origin = join(dir, 'origin.git');
    const work = join(dir, 'work');
    git(env, dir, 'init', '--bare', '--quiet', origin);
    git(env, dir, 'init', '--quiet', work);
    for (let n = 0; n < instances; n++) {
      for (const [top, text] of [['instances', 'kind: Instance\n'], ['status', 'state: PENDING\n']] as const) {
        const path = join(work, top, `ns-${n % 20}`, `app-${n}.yaml`);
        mkdirSync(dirname(path), { recursive: true });
        writeFileSync(path, text);
      }
    }
    git(env, work, 'add', '--all');
    git(env, work, 'commit', '--quiet', '-m', `${instances} instances`);
    git(env, work, 'push', '--quiet', origin, 'HEAD:refs/heads/main');
    const base = { perWriter, rate, instances, holdMs };
    const alone = await round(env, dir, origin, { ...base, label: 'alone', writers: 1, perWriter: perWriter * writers, rate: rate * writers, backlog: 0 });
    const contended = await round(env, dir, origin, { ...base, label: 'race', writers, backlog: 0 });
    const turns = await round(env, dir, origin, { ...base, label: 'turns', writers, backlog: 0, client });
    const backlogRace = await round(env, dir, origin, { ...base, label: 'blrace', writers, backlog });
    const backlogTurns = await round(env, dir, origin, { ...base, label: 'blturns', writers, backlog, client });
    const expected = writers * perWriter * 5 + 2 * backlog;
    const landed = [alone, contended, turns, backlogRace, backlogTurns].reduce((s, x) => s + x.onBranch, 0);
    return {
      writers, transitionsPerWriter: perWriter, ratePerWriter: rate, instances, backlog, holdMs,
      alone, contended, turns, backlogRace, backlogTurns,
      contendedVsAlone: Math.round((contended.seconds / alone.seconds) * 100) / 100,
      turnsVsAlone: Math.round((turns.seconds / alone.seconds) * 100) / 100,
      backlogMaxSecondsRaceVsTurns: [Math.max(...backlogRace.perWriter.map((w) => w.maxSeconds)), Math.max(...backlogTurns.perWriter.map((w) => w.maxSeconds))],
      lostTransitions: expected - landed,
      loadAverageBefore: r1(loadBefore),
      loadAverageAfter: r1(loadavg()[0] ?? 0),
    };
  } finally {
    client.close();
    await stopClusterProcess(cluster);
    rmSync(dir, { recursive: true, force: true });
  }
}
