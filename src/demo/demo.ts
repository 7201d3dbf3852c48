/**
 * The demo (`npm start`, `baton demo`): a Git repository made from repo-template/, the simulated
 * cluster, and the agent between them. It runs the same CLI commands a user would, printing each one
 * first, so the demo doubles as a walkthrough: deploy everything, change a value through a commit
 * (with its preview), let the agent run the triggered plan, then read the history from git log.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, relative } from 'node:path';
import { startCluster } from '../cluster/index.js';
import { createKubeClient, type HttpKubeClient } from '../kube/index.js';
import type { CliIO } from '../cli/io.js';

export interface DemoOptions {
  /** Where the demo lives (repository, cluster data, agent clone); recreated on every run. */
  dir: string;
  /** repo-template/ of this installation. */
  template: string;
  /** Runs a baton command in-process (the CLI's own entry). */
  baton: (args: string[], io: CliIO) => Promise<number>;
  io: CliIO;
}

const NAMESPACES = ['platform', 'shop'];

export async function runDemo(options: DemoOptions): Promise<number> {
  const { io } = options;
  const paths = { repo: join(options.dir, 'repo'), cluster: join(options.dir, 'cluster'), agent: join(options.dir, 'agent'), kubeconfig: join(options.dir, 'kubeconfig') };
  rmSync(options.dir, { recursive: true, force: true });
  mkdirSync(options.dir, { recursive: true });
  const show = (rel: string): string => relative(io.cwd, rel) || '.';

  heading(io, '1. A GitOps repository from repo-template/');
  cpSync(options.template, paths.repo, { recursive: true });
  // The catalog lives once, beside repo-template/ (see src/cli/template-repo.ts).
  cpSync(join(dirname(options.template), 'frameworks'), join(paths.repo, 'frameworks'), { recursive: true });
  git(paths.repo, 'init', '-q', '-b', 'main');
  // The agent pushes status commits back; a checked-out branch accepts them and updates the files.
  git(paths.repo, 'config', 'receive.denyCurrentBranch', 'updateInstead');
  git(paths.repo, 'add', '-A');
  git(paths.repo, 'commit', '-q', '-m', 'Initial repository from repo-template');
  io.stdout(`${show(paths.repo)}: ${git(paths.repo, 'ls-files', 'instances').trim().split('\n').join(', ')}\n`);

  heading(io, '2. The simulated Kubernetes cluster');
  const cluster = await startCluster({ dataDir: paths.cluster, kubeconfigOut: paths.kubeconfig });
  const client = await createKubeClient({ kubeconfigPath: paths.kubeconfig });
  io.stdout(`serving at ${cluster.url}; kubeconfig ${show(paths.kubeconfig)}\n`);
  try {
    const agent = ['agent', '--git', paths.repo, '--kubeconfig', paths.kubeconfig, '--data-dir', paths.agent, '--once'];
    heading(io, '3. The agent deploys every instance (one pass, then it pushes status to Git)');
    let code = await withPodTicker(io, client, () => run(options, agent));
    if (code !== 0) return code;
    printStatus(io, paths.repo);

    heading(io, '4. A pull request changes a value: more memory for the Redis cache');
    const file = join(paths.repo, 'instances/shop/cache.yaml');
    writeFileSync(file, readFileSync(file, 'utf8').replace(/^(\s*)MAXMEMORY: \S+/m, '$1MAXMEMORY: 96mb'));
    git(paths.repo, 'commit', '-q', '-am', 'shop/cache: maxmemory 96mb');
    code = await run(options, ['preview', '--git', paths.repo, '--base', 'HEAD~1', '--head', 'HEAD', '-o', 'text']);
    if (code !== 0) return code;

    heading(io, '5. After the merge, the agent runs the plan the change triggers');
    code = await withPodTicker(io, client, () => run(options, agent));
    if (code !== 0) return code;
    printStatus(io, paths.repo);

    heading(io, '6. The operations history, read from git log trailers');
    code = await run(options, ['history', '--git', paths.repo]);
    io.stdout(git(paths.repo, 'log', '--format=  %h %s', '-8'));
    printNext(io, show, paths);
    return code;
  } finally {
    client.close();
    await cluster.stop();
  }
}

function heading(io: CliIO, text: string): void {
  io.stdout(`\n== ${text}\n`);
}

async function run(options: DemoOptions, args: string[]): Promise<number> {
  const { io } = options;
  io.stdout(`$ baton ${args.map((a) => shellWord(io.cwd, a)).join(' ')}\n`);
  const sub: CliIO = { ...io, exitCode: 0, stderr: (text) => io.stdout(agentLines(text)) };
  return options.baton(['node', 'baton', ...args], sub);
}

/** An argument as the user would type it: paths under the working directory relative to it. */
function shellWord(cwd: string, arg: string): string {
  const rel = isAbsolute(arg) ? relative(cwd, arg) : arg;
  const word = rel.startsWith('..') ? arg : rel;
  return /\s/.test(word) ? JSON.stringify(word) : word;
}

/** The agent logs JSON lines (for log collectors); the demo shows their messages. */
function agentLines(text: string): string {
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => {
      try {
        const entry = JSON.parse(l) as { level?: string; msg?: string };
        return `  [agent ${entry.level ?? 'info'}] ${entry.msg ?? l}\n`;
      } catch {
        return `  ${l}\n`;
      }
    })
    .join('');
}

/** While `work` runs, prints how many pods are ready per namespace whenever it changes. */
async function withPodTicker(io: CliIO, client: HttpKubeClient, work: () => Promise<number>): Promise<number> {
  let last = '';
  const tick = async (): Promise<void> => {
    const parts: string[] = [];
    for (const ns of NAMESPACES) {
      // Finished Job pods (validation, backups) are not workloads waiting to be ready.
      const pods = (await client.list('v1', 'Pod', ns)).items.filter((p) => !['Succeeded', 'Failed'].includes((p.status as { phase?: string } | undefined)?.phase ?? ''));
      const ready = pods.filter((p) => ((p.status as { conditions?: { type: string; status: string }[] } | undefined)?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True'));
      parts.push(`${ns} ${ready.length}/${pods.length}`);
    }
    const line = `  pods ready: ${parts.join(', ')}`;
    if (line !== last) io.stdout(`${line}\n`);
    last = line;
  };
  const timer = setInterval(() => void tick().catch(() => undefined), 1000);
  try {
    return await work();
  } finally {
    clearInterval(timer);
    await tick().catch(() => undefined);
  }
}

function printStatus(io: CliIO, repo: string): void {
  io.stdout('status files the agent committed:\n');
  for (const file of git(repo, 'ls-files', 'status').trim().split('\n').filter(Boolean)) {
    const text = readFileSync(join(repo, file), 'utf8');
    const plan = /^\s*plan: (\S+)/m.exec(text)?.[1] ?? '?';
    const state = /^\s*(?:state|status): (\S+)/m.exec(text)?.[1] ?? '?';
    io.stdout(`  ${file}: ${plan} ${state}\n`);
  }
}

function printNext(io: CliIO, show: (p: string) => string, paths: { repo: string; cluster: string; agent: string; kubeconfig: string }): void {
  io.stdout(`
== Continue by hand
The cluster's state is kept in ${show(paths.cluster)}. Start it again and point kubectl at it:
  baton cluster start --data-dir ${show(paths.cluster)} --kubeconfig-out ${show(paths.kubeconfig)} &
  export KUBECONFIG=$PWD/${show(paths.kubeconfig)}
  kubectl get statefulsets,pods,jobs -A
Change the repository and let the agent act on it:
  cd ${show(paths.repo)} && $EDITOR instances/platform/zk.yaml && git commit -am "zk: 5 servers" && cd -
  baton preview --git ${show(paths.repo)} --base HEAD~1 --head HEAD
  baton agent --git ${show(paths.repo)} --kubeconfig ${show(paths.kubeconfig)} --data-dir ${show(paths.agent)} --once
  baton plan trigger shop/cache backup --git ${show(paths.repo)}    # a plan on demand, through Git
  baton history --git ${show(paths.repo)}
`);
}

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 'Demo User', GIT_AUTHOR_EMAIL: 'demo@example.com', GIT_COMMITTER_NAME: 'Demo User', GIT_COMMITTER_EMAIL: 'demo@example.com' },
  });
}
