/**
 * `npm run bench -- status-push [--writers 4] [--transitions 300] [--rate 8] [--instances 2000]`
 * The status push path of a shard set alone (issue #20): `--writers` status writers, each with its
 * own bare clone (as each member has), push to one bare repository on the local file system (as the
 * scale bench's origin). Each writer submits `--transitions` transitions at `--rate` per second (a
 * member with 16 plans running records a few per second), spread over `--instances` status files in
 * 20 namespaces. Measured: seconds until every transition is on the branch (the last writer's last
 * flush), pushes and rejected pushes, and where the writers' time went (commit, push, rejected push,
 * pause, fetch, rebuild). Baseline in the same run: one writer submitting all the transitions at the
 * summed rate (no contention): `contendedVsAlone` is the ratio of the two times.
 * `BENCH_TRACE2=DIR` in the environment makes every git process write its trace2 timings (perf format,
 * one file per process) into DIR: where a push's or a fetch's time goes, process by process.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { numberArg } from './_args.js';
import { benchWorkdir } from './_workdir.js';
import { GitMirror, ObjectStore } from '../src/git/index.js';
import { StatusWriter, type PushTimings } from '../src/sync/status-writer.js';
import { summaryOf, trailersOf, type Transition } from '../src/sync/trailers.js';

const git = (env: NodeJS.ProcessEnv, cwd: string, ...args: string[]): string => execFileSync('git', args, { cwd, env, encoding: 'utf8', maxBuffer: 1 << 30 }).trim();
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

interface Round { seconds: number; pushes: number; rejections: number; deferred: number; onBranch: number; timings: PushTimings }

async function round(env: NodeJS.ProcessEnv, dir: string, origin: string, label: string, writers: number, perWriter: number, rate: number, instances: number): Promise<Round> {
  const members = await Promise.all(Array.from({ length: writers }, async (_, m) => {
    const mirror = new GitMirror({ dir: join(dir, `${label}-${m}`), remote: { url: origin, auth: { kind: 'none' } }, env });
    await mirror.init();
    await mirror.fetch('main');
    return new StatusWriter({ mirror, store: new ObjectStore(mirror.dir), branch: 'main', author: { name: `${label}-${m}`, email: `${label}${m}@example.com` } });
  }));
  const started = performance.now();
  await Promise.all(members.map(async (writer, m) => {
    for (let i = 0; i < perWriter; i++) {
      const n = (m * perWriter + i) % instances;
      const t: Transition = { instance: { namespace: `ns-${n % 20}`, name: `app-${n}` }, event: 'observed', result: 'COMPLETE', plan: 'deploy', sourceCommit: 'abc123' };
      writer.submit({ path: `status/ns-${n % 20}/app-${n}.yaml`, content: `state: COMPLETE\nround: ${label}-${i}\n`, summary: `${summaryOf(t)} (${label}-${m} ${i})`, trailers: trailersOf(t) });
      await sleep(1000 / rate);
    }
    await writer.settle(600_000);
  }));
  const seconds = (performance.now() - started) / 1000;
  const onBranch = git(env, origin, 'log', '--format=%s', 'main').split('\n').filter((s) => s.includes(`(${label}-`)).length;
  const timings: PushTimings = { commitMs: 0, pushMs: 0, rejectedPushMs: 0, pauseMs: 0, fetchMs: 0, replayMs: 0, replayedCommits: 0, rejections: 0 };
  for (const w of members) for (const k of Object.keys(timings) as (keyof PushTimings)[]) timings[k] += w.timings[k];
  for (const w of members) w.close();
  for (const k of Object.keys(timings) as (keyof PushTimings)[]) timings[k] = Math.round(timings[k]);
  return { seconds: Math.round(seconds * 10) / 10, pushes: members.reduce((s, w) => s + w.pushes, 0), rejections: timings.rejections, deferred: members.reduce((s, w) => s + w.deferred, 0), onBranch, timings };
}

export async function run(args: string[]): Promise<Record<string, unknown>> {
  const writers = numberArg(args, 'writers', 4);
  const perWriter = numberArg(args, 'transitions', 300);
  const rate = numberArg(args, 'rate', 8);
  const instances = numberArg(args, 'instances', 2000);
  const { dir, env } = benchWorkdir('push', process.env.BENCH_TRACE2 ? `[trace2]\n\tperfTarget = ${process.env.BENCH_TRACE2}\n` : '');
  const loadBefore = loadavg()[0] ?? 0;
  try {
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
    const alone = await round(env, dir, origin, 'alone', 1, perWriter * writers, rate * writers, instances);
    const contended = await round(env, dir, origin, 'shard', writers, perWriter, rate, instances);
    return {
      writers, transitionsPerWriter: perWriter, ratePerWriter: rate, instances,
      alone, contended,
      contendedVsAlone: Math.round((contended.seconds / alone.seconds) * 100) / 100,
      lostTransitions: writers * perWriter * 2 - alone.onBranch - contended.onBranch,
      loadAverageBefore: Math.round(loadBefore * 10) / 10,
      loadAverageAfter: Math.round((loadavg()[0] ?? 0) * 10) / 10,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
