/**
 * `npm run bench -- idle-poll --repo DIR [--rounds 11]`: the idle poll of a finished repository alone
 * (issue #20: at most 1.2x a bare `git fetch`), without running its plans again. DIR is a bare
 * repository whose instances are all COMPLETE in their status files, e.g. one kept by
 * `npm run bench -- scale --keep-repo DIR`. An agent (simulated cluster in its own process) clones it
 * and makes its first pass; then rounds of: an idle poll (Agent.pass), a bare `git fetch` of it into a
 * repository that already has it, and the agent's own fetch alone (its mirror, no agent logic), in an
 * order that turns every round. Medians.
 */
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { numberArg, stringArg } from './_args.js';
import { clusterProcess, kubeconfigServer, median, stopClusterProcess } from './_cluster.js';
import { benchWorkdir } from './_workdir.js';
import { GitMirror } from '../src/git/index.js';
import { createKubeClient } from '../src/kube/http-client.js';
import { ConfigMapCheckpointStore } from '../src/plans/checkpoint-configmap.js';
import { defaultHooks } from '../src/plans/defaults.js';
import { Renderer } from '../src/render/index.js';
import { Agent } from '../src/sync/agent.js';

export async function run(args: string[]): Promise<Record<string, unknown>> {
  const repo = stringArg(args, 'repo');
  if (repo === undefined) throw new Error('--repo DIR: a bare repository whose instances are all COMPLETE (npm run bench -- scale --keep-repo DIR)');
  const rounds = numberArg(args, 'rounds', 11);
  const { dir, env } = benchWorkdir('idle');
  const loadBefore = loadavg()[0] ?? 0;
  const cluster = await clusterProcess(join(dir, 'kubeconfig'));
  const url = kubeconfigServer(join(dir, 'kubeconfig'));
  const client = await createKubeClient({ url });
  const renderer = new Renderer();
  try {
    const git = (cwd: string, ...a: string[]): string => execFileSync('git', a, { cwd, env, encoding: 'utf8' }).trim();
    const instances = git(repo, 'ls-tree', '-r', '--name-only', 'main', 'instances/').split('\n').filter((l) => l !== '').length;
    const commits = Number(git(repo, 'rev-list', '--count', 'main'));
    const mirror = new GitMirror({ dir: join(dir, 'agent'), remote: { url: repo, auth: { kind: 'none' } }, env });
    const agent = new Agent({ mirror, branch: 'main', client, checkpoints: new ConfigMapCheckpointStore(client), hooks: defaultHooks(), renderer, author: { name: 'Bench', email: 'b@example.com' }, concurrency: 16 });
    await agent.start();
    const t = performance.now();
    const first = await agent.pass();
    const firstPassMs = performance.now() - t;
    if (first.reports.length > 0) throw new Error(`the first pass ran plans (is every instance COMPLETE?): ${first.reports.slice(0, 5).map((x) => `${x.instance} ${x.outcome.kind}`).join(', ')}`);
    const plain = join(dir, 'plain-fetch.git');
    git(dir, 'init', '--bare', '--quiet', plain);
    git(plain, 'fetch', '--quiet', repo, '+refs/heads/main:refs/remotes/origin/main');
    const pollMs: number[] = [];
    const fetchMs: number[] = [];
    const mirrorFetchMs: number[] = [];
    const steps: (() => Promise<void>)[] = [
      async () => {
        const t0 = performance.now();
        const r = await agent.pass();
        pollMs.push(performance.now() - t0);
        if (r.reports.length > 0) throw new Error(`an idle poll ran plans: ${r.reports.slice(0, 5).map((x) => `${x.instance} ${x.outcome.kind}`).join(', ')}`);
      },
      async () => {
        const t0 = performance.now();
        git(plain, 'fetch', '--quiet', '--no-tags', repo, '+refs/heads/main:refs/remotes/origin/main');
        fetchMs.push(performance.now() - t0);
      },
      async () => {
        const t0 = performance.now();
        await mirror.fetch('main');
        mirrorFetchMs.push(performance.now() - t0);
      },
    ];
    // The order turns every round, so that no measurement always comes first (or after the same one).
    for (let i = 0; i < rounds; i++) {
      for (let j = 0; j < steps.length; j++) await steps[(i + j) % steps.length]?.();
    }
    await agent.stop();
    const poll = median(pollMs);
    const fetch = median(fetchMs);
    return {
      instances,
      commits,
      firstPassMs: Math.round(firstPassMs),
      // A tenth of a millisecond: at 10,000 instances an idle poll takes ~10-15 ms, and whole ms hid the difference.
      idlePollMs: Math.round(poll * 10) / 10,
      bareFetchMs: Math.round(fetch * 10) / 10,
      idleMirrorFetchMs: Math.round(median(mirrorFetchMs) * 10) / 10,
      idlePollVsFetch: Math.round((poll / fetch) * 100) / 100,
      rounds,
      loadAverageBefore: Math.round(loadBefore * 10) / 10,
      loadAverageAfter: Math.round((loadavg()[0] ?? 0) * 10) / 10,
    };
  } finally {
    await renderer.close();
    client.close();
    await stopClusterProcess(cluster);
    rmSync(dir, { recursive: true, force: true });
  }
}
