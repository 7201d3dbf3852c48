/**
 * `npm run bench -- agent [--n 1000] [--history 10000]`
 * (a) a poll that finds nothing new vs. a bare `git fetch` of the same repository, 15 of each alternating (target <= 1.2x),
 * (b) commit + push of one status update with 10 and with `--history` commits of history (target: no growth),
 * (c) time to bring `--n` instances from a fresh repository to COMPLETE on the simulated cluster,
 * and peak memory (target < 300 MiB).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { numberArg } from './_args.js';
import { benchWorkdir } from './_workdir.js';
import { startCluster } from '../src/cluster/index.js';
import { GitMirror, ObjectStore } from '../src/git/index.js';
import { createKubeClient } from '../src/kube/http-client.js';
import { ConfigMapCheckpointStore } from '../src/plans/checkpoint-configmap.js';
import { defaultHooks } from '../src/plans/defaults.js';
import { KubeEventRecorder } from '../src/plans/kube-events.js';
import { Renderer } from '../src/render/index.js';
import { Agent } from '../src/sync/agent.js';
import { StatusWriter } from '../src/sync/status-writer.js';
import { instance, webFramework } from '../test/sync/fixtures.js';

const git = (env: NodeJS.ProcessEnv, cwd: string, ...args: string[]): string => execFileSync('git', args, { cwd, env, encoding: 'utf8', maxBuffer: 1 << 28 }).trim();

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? 0;
}

async function timed(fn: () => unknown): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

/** A bare repository with `commits` commits on main (fast-import), each touching one file. */
function historyRepo(env: NodeJS.ProcessEnv, dir: string, commits: number): string {
  const bare = join(dir, `history-${commits}.git`);
  git(env, dir, 'init', '--bare', '--quiet', bare);
  let stream = '';
  for (let i = 1; i <= commits; i++) {
    const data = `change ${i}\n`;
    stream += `commit refs/heads/main\nmark :${i}\ncommitter Bench <b@example.com> ${1700000000 + i} +0000\ndata 9\ncommit ${String(i % 10)}\n${i > 1 ? `from :${i - 1}\n` : ''}M 100644 inline notes/file-${i % 50}.txt\ndata ${Buffer.byteLength(data)}\n${data}\n`;
  }
  execFileSync('git', ['fast-import', '--quiet'], { cwd: bare, env, input: stream, maxBuffer: 1 << 28 });
  return bare;
}

export async function run(args: string[]): Promise<Record<string, unknown>> {
  const n = numberArg(args, 'n', 1000);
  const history = numberArg(args, 'history', 10_000);
  const { dir, env } = benchWorkdir('agent');
  let peakRss = 0;
  const sampler = setInterval(() => { peakRss = Math.max(peakRss, process.memoryUsage().rss); }, 50);
  const cluster = await startCluster({ controllers: false, kubeconfigOut: join(dir, 'kubeconfig') });
  const client = await createKubeClient({ url: cluster.url });
  const renderer = new Renderer();
  try {
    // The repository: one framework and n instances in one commit.
    const origin = join(dir, 'origin.git');
    const work = join(dir, 'work');
    git(env, dir, 'init', '--bare', '--quiet', origin);
    git(env, dir, 'init', '--quiet', work);
    for (const [path, text] of Object.entries(webFramework())) { mkdirSync(dirname(join(work, path)), { recursive: true }); writeFileSync(join(work, path), text); }
    for (let i = 0; i < n; i++) {
      const path = join(work, 'instances', `ns-${i % 20}`, `app-${i}.yaml`);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, instance({ VALUE: `v${i}` }));
    }
    git(env, work, 'add', '--all');
    git(env, work, 'commit', '--quiet', '-m', `${n} instances`);
    git(env, work, 'push', '--quiet', origin, 'HEAD:refs/heads/main');

    // (c) fresh repository to all COMPLETE.
    // As `baton agent` runs by default: Kubernetes Events recorded for every plan.
    const events = new KubeEventRecorder(client);
    const mirror = new GitMirror({ dir: join(dir, 'agent'), remote: { url: origin, auth: { kind: 'none' } }, env });
    const agent = new Agent({ mirror, branch: 'main', client, checkpoints: new ConfigMapCheckpointStore(client), hooks: defaultHooks(), renderer, author: { name: 'Baton', email: 'b@example.com' }, concurrency: 16, coalesceMs: 500, kubeEvents: events });
    await agent.start();
    let complete = 0;
    const allMs = await timed(async () => {
      const report = await agent.pass();
      complete = report.reports.filter((r) => r.outcome.kind === 'complete').length;
    });

    // (a) a poll that finds nothing new vs. a bare git fetch of the same repository, alternating
    // (15 of each) so that both see the same machine; medians.
    const fetchDir = join(dir, 'plain-fetch.git');
    git(env, dir, 'init', '--bare', '--quiet', fetchDir);
    git(env, fetchDir, 'fetch', '--quiet', origin, '+refs/heads/main:refs/remotes/origin/main');
    await agent.pass();
    const pollMs: number[] = [];
    const fetchMs: number[] = [];
    for (let i = 0; i < 15; i++) {
      pollMs.push(await timed(async () => {
        const r = await agent.pass();
        if (r.reports.length > 0) throw new Error('an idle poll ran plans');
      }));
      fetchMs.push(await timed(() => git(env, fetchDir, 'fetch', '--quiet', '--no-tags', origin, '+refs/heads/main:refs/remotes/origin/main')));
    }
    await agent.stop();

    // (b) status commit + push with short and long history.
    const pushMs: Record<string, number> = {};
    for (const commits of [10, history]) {
      const bare = historyRepo(env, dir, commits);
      const m = new GitMirror({ dir: join(dir, `writer-${commits}`), remote: { url: bare, auth: { kind: 'none' } }, env });
      await m.init();
      await m.fetch('main');
      const writer = new StatusWriter({ mirror: m, store: new ObjectStore(m.dir), branch: 'main', author: { name: 'Baton', email: 'b@example.com' }, coalesceMs: 1 });
      const times: number[] = [];
      for (let i = 0; i < 5; i++) {
        times.push(await timed(async () => {
          writer.submit({ path: 'status/ns/app.yaml', content: `state: ${i}\n`, summary: `ns/app: update ${i}`, trailers: [['Baton-Instance', 'ns/app']] });
          await writer.flush();
        }));
      }
      writer.close();
      pushMs[String(commits)] = Math.round(median(times));
    }

    const poll = median(pollMs);
    const fetch = median(fetchMs);
    return {
      instances: n,
      completed: complete,
      allCompleteSeconds: Math.round(allMs / 100) / 10,
      idlePollMs: Math.round(poll),
      bareFetchMs: Math.round(fetch),
      idlePollVsFetch: Math.round((poll / fetch) * 100) / 100,
      statusPushMs10: pushMs['10'],
      [`statusPushMs${history}`]: pushMs[String(history)],
      kubeEventsPosted: events.posted,
      kubeEventsDropped: events.dropped,
      peakRssMiB: Math.round(Math.max(peakRss, process.memoryUsage().rss) / 1048576),
    };
  } finally {
    clearInterval(sampler);
    await renderer.close();
    client.close();
    await cluster.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
