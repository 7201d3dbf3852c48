/**
 * `npm run bench -- scale [--n 1000] [--agents 4] [--concurrency 16] [--lease 15] [--kill-at 0.5] [--kill-after-renewal] [--no-kill] [--heap-snapshot] [--cpu-prof] [--cpu-breakdown] [--agent-node-options "..."] [--phantom-members K]`
 * Issue #20's figures: the simulated cluster (controllers on) in a process of its own; `--n` instances
 * of a small framework (a ConfigMap step and a Deployment step each) in one repository; `--agents`
 * `baton agent --shard-set` processes (the built CLI, bin/baton.js: run `npm run build` first), each
 * talking to the cluster through a recording proxy in this process (to tell who applied what).
 * Measured: time until every instance is COMPLETE in Git, peak RSS of each agent process (VmHWM),
 * status transitions lost (a run COMPLETE in its checkpoint without its plan-complete commit, or any
 * history defect), and, killing one agent (SIGKILL) when a fraction of the instances are done
 * (`--kill-at`, default half; with `--kill-after-renewal` right after its next Lease renewal is stored):
 * seconds until every survivor acts under a member set without it (bench/_takeover.ts), and
 * completed steps applied again afterwards (from the checkpoints read right after the kill): real
 * applies of the killed member's instances (`rerunSteps`), of the others' apart, and drift dry runs. Then an idle poll of the repository by an agent
 * vs a bare `git fetch` of it, alternating (medians). Kubernetes Events are off in the agents.
 */
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { numberArg, stringArg } from './_args.js';
import { clusterProcess, kubeconfigServer, median, stopClusterProcess } from './_cluster.js';
import { gitCpuBySubcommand, gitShim, machineBusySeconds, procTimes, round1, type GitShim, type ProcTimes } from './_cpu.js';
import { benchWorkdir } from './_workdir.js';
import { GitMirror } from '../src/git/index.js';
import { createKubeClient } from '../src/kube/http-client.js';
import { CHECKPOINT_LABEL, ConfigMapCheckpointStore, instanceOfCheckpoint, parseCheckpointConfigMap } from '../src/plans/checkpoint-configmap.js';
import { defaultHooks } from '../src/plans/defaults.js';
import { Renderer } from '../src/render/index.js';
import { Agent } from '../src/sync/agent.js';
import { configHashOf, configTextOf, rendezvousOwner } from '../src/shards/index.js';
import { CONFIG_ANNOTATION, CONFIG_HASH_ANNOTATION, MEMBER_ID_ANNOTATION, SHARD_SET_LABEL, memberIdOf, memberLeaseName } from '../src/shards/member-lease.js';
import type { KubeClient } from '../src/kube/client.js';
import type { KubeObject } from '../src/kube/object.js';
import type { RecordingProxy } from '../test/helpers/recording-proxy.js';
import { tcpRecordingProxy } from './_proxy.js';
import { rerunAfterKill, type Snapshot } from './_rerun.js';
import { takeoverMs as takeoverOf, takeoverTrace, type LeaseChange, type ViewLine } from './_takeover.js';
import { checkHistory } from '../test/helpers/transitions.js';

const ROOT = join(import.meta.dirname, '..');
const API = 'apiVersion: baton.dev/v1alpha1';
const git = (env: NodeJS.ProcessEnv, cwd: string, ...args: string[]): string => execFileSync('git', args, { cwd, env, encoding: 'utf8', maxBuffer: 1 << 30 }).trim();
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
/** While agents run: asynchronous, so the recording proxies in this process never wait on git. */
const gitAsync = async (env: NodeJS.ProcessEnv, cwd: string, ...args: string[]): Promise<string> => (await promisify(execFile)('git', args, { cwd, env, encoding: 'utf8', maxBuffer: 1 << 30 })).stdout.trim();

/** A ConfigMap step, then a Deployment step (0 replicas: the simulated controller makes it ready at once). */
function smallFramework(): Record<string, string> {
  const dir = 'frameworks/small/1.0.0';
  return {
    [`${dir}/framework.yaml`]: [
      API, 'kind: Framework', 'name: small', 'version: 1.0.0', 'appVersion: "1"',
      'tasks:', '  - { name: config, kind: Apply, resources: [config.yaml.ejs] }', '  - { name: app, kind: Apply, resources: [app.yaml.ejs] }',
      'plans:', '  deploy:', '    phases:', '      - name: main', '        strategy: serial', '        steps:', '          - { name: config, tasks: [config] }', '          - { name: app, tasks: [app] }', '',
    ].join('\n'),
    [`${dir}/params.yaml`]: '- { name: VALUE, type: string, default: v }\n',
    [`${dir}/templates/config.yaml.ejs`]: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: <%= instance.name %>\ndata:\n  value: <%= params.VALUE %>\n',
    [`${dir}/templates/app.yaml.ejs`]: [
      'apiVersion: apps/v1', 'kind: Deployment', 'metadata:', '  name: <%= instance.name %>', 'spec:', '  replicas: 0',
      '  selector: { matchLabels: { app: <%= instance.name %> } }', '  template:', '    metadata:', '      labels: { app: <%= instance.name %> }',
      '    spec: { containers: [{ name: c, image: "nginx:1.27" }] }', '',
    ].join('\n'),
  };
}

interface AgentProc {
  child: ChildProcess; name: string; logs: string[]; peakKiB: number; childrenPeakKiB: number; exited: Promise<void>; peakAt?: { seconds: number; done: number; stopping: boolean; lastLogs: string[] };
  /** CPU seconds as last read (the agent and its reaped children), and per sandbox process its own. */
  cpu: ProcTimes; sandboxCpu: Map<number, number>;
  /** Its `acting under members` lines (bench/_takeover.ts). */
  views: ViewLine[];
}

/**
 * The agent's template sandbox processes, by /proc's children lists (not the short-lived kubeconfig
 * child at start, nor git: the sandbox is the child started with a heap limit).
 */
function childPids(pid: number | undefined): number[] {
  try {
    const all = readFileSync(`/proc/${pid ?? 0}/task/${pid ?? 0}/children`, 'utf8').trim().split(/\s+/).filter((p) => p !== '').map(Number);
    return all.filter((child) => {
      try {
        return readFileSync(`/proc/${child}/cmdline`, 'utf8').includes('--max-old-space-size');
      } catch {
        return false;
      }
    });
  } catch {
    return [];
  }
}

function rssKiB(pid: number | undefined): number {
  try {
    const status = readFileSync(`/proc/${pid ?? 0}/status`, 'utf8');
    return Math.max(Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0), Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0));
  } catch {
    return 0;
  }
}

/** CPU seconds of a process (user + system) and of its children it has waited for (git), from /proc. */
function cpuSeconds(pid: number | undefined): { self: number; children: number } {
  try {
    const f = (readFileSync(`/proc/${pid ?? 0}/stat`, 'utf8').split(') ')[1] ?? '').split(' ').map(Number);
    return { self: ((f[11] ?? 0) + (f[12] ?? 0)) / 100, children: ((f[13] ?? 0) + (f[14] ?? 0)) / 100 };
  } catch {
    return { self: 0, children: 0 };
  }
}

function currentRssKiB(pid: number | undefined): number {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid ?? 0}/status`, 'utf8'))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

export async function run(args: string[]): Promise<Record<string, unknown>> {
  const n = numberArg(args, 'n', 1000);
  const agentCount = numberArg(args, 'agents', 4);
  const concurrency = numberArg(args, 'concurrency', 16);
  const kill = !args.includes('--no-kill');
  // `--kill-at F`: the kill comes once a fraction F of the instances is COMPLETE in Git (at 0.5 the
  // victim's instances may all be done before its lease runs out: nothing is taken over mid-plan).
  const killAt = numberArg(args, 'kill-at', 0.5);
  if (killAt >= 1) throw new Error(`--kill-at expects a fraction below 1, got ${killAt}`);
  // `--kill-after-renewal`: the kill waits for the victim's next Lease renewal (as the bench's own watch
  // sees it land) and comes right after it: the phase that makes the survivors wait longest.
  const killAfterRenewal = args.includes('--kill-after-renewal');
  // `--heap-snapshot`: the last agent writes a V8 heap snapshot when 60% of the instances are COMPLETE
  // (node --heapsnapshot-signal), into a directory kept after the run (its path is in the figures).
  const heapDir = args.includes('--heap-snapshot') ? mkdtempSync(join(tmpdir(), 'baton-bench-heap-')) : undefined;
  // `--cpu-prof`: every agent writes a V8 CPU profile when it stops (node --cpu-prof), and its log lines
  // (JSON, one a line) beside it, into a directory kept after the run (its path is in the figures).
  // `--agent-node-options "..."`: NODE_OPTIONS of the agent processes (V8 heap settings, docs/scale-out.md).
  const agentNodeOptions = stringArg(args, 'agent-node-options');
  // `--keep-repo DIR`: copy the finished repository (bare) to DIR, for `npm run bench -- idle-poll --repo DIR`.
  const keepRepo = stringArg(args, 'keep-repo');
  const profDir = args.includes('--cpu-prof') ? mkdtempSync(join(tmpdir(), 'baton-bench-prof-')) : undefined;
  // `--logs DIR`: every agent's log lines (JSON, one a line, each after the bench's receive time in ms) go to
  // DIR/agent-<i>.log, without profiling (with `--cpu-prof` they go beside the profiles).
  const logDir = stringArg(args, 'logs') ?? profDir;
  if (logDir !== undefined) mkdirSync(logDir, { recursive: true });
  // `--cpu-breakdown`: CPU seconds until all are COMPLETE per process category (agents, their git
  // processes by subcommand, their template sandboxes, the simulated cluster, this process with its
  // recording proxies, this process's own git) and the whole machine's (see _cpu.ts).
  const cpuBreakdown = args.includes('--cpu-breakdown');
  // `--phantom-members K`: K member Leases of the shard set that this process renews and that never act
  // (no view published), so the agents act on their share only: with `--agents 1 --phantom-members 3`
  // one agent holds about a quarter of a repository of `--n` instances (what one member of four holds,
  // without the other three processes on the machine). Completion counts the agents' share.
  const phantomCount = numberArg(args, 'phantom-members', 0);
  // Lease duration in seconds (renew deadline 2/3 of it, retry 2 s): on a machine whose load is many
  // times its cores, a starved agent misses short deadlines and (rightly) stops.
  const leaseSeconds = numberArg(args, 'lease', 15);
  const leaseFlags = ['--lease-duration', `${leaseSeconds}s`, '--renew-deadline', `${Math.round((leaseSeconds * 2000) / 3)}ms`, '--lease-retry', '2s'];
  const cli = join(ROOT, 'bin', 'baton.js');
  if (!existsSync(join(ROOT, 'dist', 'cli', 'run.js'))) throw new Error('run `npm run build` first: the agents run the built CLI (bin/baton.js)');
  const { dir, env } = benchWorkdir('scale');
  const loadBefore = loadavg()[0] ?? 0;
  const cluster = await clusterProcess(join(dir, 'kubeconfig'), { controllers: true, ...(profDir !== undefined ? { cpuProfDir: profDir } : {}) });
  const url = kubeconfigServer(join(dir, 'kubeconfig'));
  const client = await createKubeClient({ url });
  // The member Leases' changes as the API server stores them (straight to it, not through a proxy): when the killed member's last renewal landed.
  const leaseWatch = watchMemberLeases(client, 'bench');
  const proxies: RecordingProxy[] = [];
  const agents: AgentProc[] = [];
  // When each agent's peak RSS was reached (seconds since start, instances COMPLETE then): where to look for it.
  let doneNow = 0;
  let stopping = false;
  let startedAt = Date.now();
  const sampler = setInterval(() => {
    for (const a of agents) {
      const kib = rssKiB(a.child.pid);
      // With the agent's last log lines then (what it was doing), and whether it had been told to stop.
      if (kib > a.peakKiB) a.peakAt = { seconds: Math.round((Date.now() - startedAt) / 1000), done: doneNow, stopping, lastLogs: a.logs.slice(-3).map((l) => l.slice(0, 160)) };
      a.peakKiB = Math.max(a.peakKiB, kib);
      const sandboxes = childPids(a.child.pid);
      a.childrenPeakKiB = Math.max(a.childrenPeakKiB, sandboxes.reduce((sum, p) => sum + rssKiB(p), 0));
      if (cpuBreakdown && a.child.exitCode === null && a.child.signalCode === null) {
        const t = procTimes(a.child.pid);
        if (t.self > 0) a.cpu = t;
        for (const p of sandboxes) a.sandboxCpu.set(p, Math.max(a.sandboxCpu.get(p) ?? 0, procTimes(p).self));
      }
    }
  }, 500);
  const renderer = new Renderer();
  let phantoms: { ids: string[]; stop: () => void } | undefined;
  try {
    const origin = join(dir, 'origin.git');
    const work = join(dir, 'work');
    git(env, dir, 'init', '--bare', '--quiet', origin);
    git(env, dir, 'init', '--quiet', work);
    for (const [path, text] of Object.entries(smallFramework())) { mkdirSync(dirname(join(work, path)), { recursive: true }); writeFileSync(join(work, path), text); }
    const keys = Array.from({ length: n }, (_, i) => ({ namespace: `ns-${i % 20}`, name: `app-${i}` }));
    for (const k of keys) {
      const path = join(work, 'instances', k.namespace, `${k.name}.yaml`);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, `${API}\nkind: Instance\nframework: small\nversion: 1.0.0\nparams:\n  VALUE: "${k.name}"\n`);
    }
    git(env, work, 'add', '--all');
    git(env, work, 'commit', '--quiet', '-m', `${n} instances`);
    git(env, work, 'push', '--quiet', origin, 'HEAD:refs/heads/main');

    const shim: GitShim | undefined = cpuBreakdown ? gitShim(join(dir, 'git-shim')) : undefined;
    const cpuAtStart = { bench: process.cpuUsage(), benchChildren: procTimes('self').children, cluster: procTimes(cluster.pid).self, machine: machineBusySeconds() };
    phantoms = phantomCount > 0 ? await startPhantoms(client, phantomCount, { repo: origin, branch: 'main' }, leaseSeconds) : undefined;
    const started = Date.now();
    startedAt = started;
    for (let i = 0; i < agentCount; i++) {
      // At the TCP level: bytes pass untouched, the proxy reads only the HTTP framing (bench/_proxy.ts).
      const proxy = await tcpRecordingProxy(url);
      proxies.push(proxy);
      const kubeconfig = proxy.kubeconfig(join(dir, `kubeconfig-${i}`));
      const child = spawn(process.execPath, [...(heapDir !== undefined ? ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${heapDir}`] : []),
        ...(profDir !== undefined ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`] : []), cli, 'agent', '--repo', origin, '--data-dir', join(dir, `data-${i}`), '--kubeconfig', kubeconfig, '--interval', '2s', '--no-events',
        '--shard-set', 'bench', '--concurrency', String(concurrency), ...leaseFlags],
      { env: { ...env, ...(shim ? { PATH: `${shim.binDir}:${env.PATH ?? ''}` } : {}), BATON_AUTHOR_NAME: `agent-${i}`, BATON_AUTHOR_EMAIL: `agent-${i}@example.com`, ...(agentNodeOptions !== undefined ? { NODE_OPTIONS: agentNodeOptions } : {}) }, stdio: ['ignore', 'ignore', 'pipe'] });
      const logs: string[] = [];
      const views: ViewLine[] = [];
      let rest = '';
      child.stderr?.on('data', (d: Buffer) => {
        rest += d.toString();
        const lines = rest.split('\n');
        rest = lines.pop() ?? '';
        if (logDir !== undefined) appendFileSync(join(logDir, `agent-${i}.log`), lines.map((l) => `${Date.now()} ${l}\n`).join(''));
        for (const line of lines) {
          try {
            const entry = JSON.parse(line) as { msg?: unknown; time?: unknown; members?: unknown; gone?: unknown };
            logs.push(`${Date.now()} ${String(entry.msg)}`);
            if (/acting under members/.test(String(entry.msg)) && Array.isArray(entry.members)) {
              views.push({ agentAt: Date.parse(String(entry.time)), benchAt: Date.now(), members: entry.members.map(String), gone: Array.isArray(entry.gone) ? (entry.gone as ViewLine['gone']) : [] });
            }
          } catch { logs.push(`${Date.now()} ${line}`); }
        }
      });
      agents.push({ child, name: `agent-${i}`, logs, peakKiB: 0, childrenPeakKiB: 0, exited: new Promise((r) => child.once('exit', () => r())), cpu: { self: 0, children: 0 }, sandboxCpu: new Map(), views });
    }

    // Instances with a plan-complete commit, read from the commits the branch gained since the last look
    // (reading the whole log every 2 s cost this process a core's worth of git at 10,000 instances).
    const completeSet = new Set<string>();
    let lookedAt: string | undefined;
    const completed = async (): Promise<Set<string>> => {
      const tip = await gitAsync(env, origin, 'rev-parse', 'main');
      if (tip === lookedAt) return completeSet;
      const out = await gitAsync(env, origin, 'log', '--format=%(trailers:key=Baton-Instance,valueonly,separator=%x2C)%x09%(trailers:key=Baton-Event,valueonly,separator=%x2C)', tip, ...(lookedAt ? ['--not', lookedAt] : []));
      // A commit of several transitions (a shard member's batch) lists its instances and events in the
      // same order, one per transition block (src/sync/status-message.ts).
      for (const l of out.split('\n')) {
        const [instances = '', events = ''] = l.split('\t');
        const names = instances.split(',');
        events.split(',').forEach((e, i) => { if (e === 'plan-complete') completeSet.add(names[i] ?? ''); });
      }
      lookedAt = tip;
      return completeSet;
    };
    let killedAt: number | undefined;
    let takeoverMs: number | undefined;
    let snapshot: Snapshot = { steps: new Map(), readAt: 0 };
    const victim = agents[0];
    /**
     * Kill until every survivor acts under a member set without the killed member: each survivor's
     * first such view, dated by its own log time (bench/_takeover.ts).
     */
    const victimId = (): string => /joined shard set bench as member ([0-9a-f]+)/.exec(victim?.logs.find((l) => /joined shard set bench as member/.test(l)) ?? '')?.[1] ?? '';
    const takeover = (): number | undefined => killedAt === undefined ? undefined : takeoverOf(agents.filter((a) => a !== victim).map((a) => a.views), killedAt, victimId());
    const deadline = Date.now() + 60 * 60_000;
    let reported = 0;
    let heapTaken = false;
    // The instances the agents act on: all of them, or with phantom members the agents' share (by the
    // member ids they log when they join, and the same rendezvous hashing as theirs).
    let target = n;
    if (phantoms !== undefined) {
      const joined = /joined shard set bench as member ([0-9a-f]+)/;
      while (!agents.every((a) => a.logs.some((l) => joined.test(l)))) {
        if (agents.some((a) => a.child.exitCode !== null)) throw new Error(`an agent exited before it joined:\n${agents.flatMap((a) => a.logs.slice(-4)).join('\n')}`);
        await sleep(100);
      }
      const ids = agents.map((a) => joined.exec(a.logs.find((l) => joined.test(l)) ?? '')?.[1] ?? '');
      const members = [...ids, ...phantoms.ids];
      target = keys.filter((k) => ids.includes(rendezvousOwner(`${k.namespace}/${k.name}`, members) ?? '')).length;
    }
    for (;;) {
      const done = (await completed()).size;
      doneNow = done;
      if (done >= target) break;
      for (const a of agents) {
        if (a === victim && killedAt !== undefined) continue;
        if ((a.child.exitCode !== null || a.child.signalCode !== null) && !a.logs.includes('(reported)')) {
          process.stderr.write(`${a.name} exited (${a.child.exitCode ?? a.child.signalCode}):\n${a.logs.slice(-6).join('\n')}\n`);
          a.logs.push('(reported)');
        }
      }
      if (Date.now() - reported > 15_000) {
        reported = Date.now();
        const running = agents.filter((a) => a.child.exitCode === null && a.child.signalCode === null);
        process.stderr.write(`${Math.round((Date.now() - started) / 1000)} s: ${done}/${target} COMPLETE; agents running (RSS MiB): ${running.map((a) => `${a.name} ${Math.round(currentRssKiB(a.child.pid) / 1024)}`).join(', ')}; load ${(loadavg()[0] ?? 0).toFixed(1)}\n`);
      }
      if (Date.now() > deadline) throw new Error(`only ${done} of ${n} instances COMPLETE after an hour`);
      if (kill && killedAt === undefined && done >= target * killAt && victim) {
        if (killAfterRenewal) {
          const name = memberLeaseName('bench', victimId());
          const seen = leaseWatch.changes.get(name)?.length ?? 0;
          while ((leaseWatch.changes.get(name)?.length ?? 0) === seen) await sleep(5);
        }
        if (cpuBreakdown) victim.cpu = procTimes(victim.child.pid);
        victim.child.kill('SIGKILL');
        killedAt = Date.now();
        await victim.exited;
        // Every checkpoint's COMPLETE steps, read now in one list (the survivors go on with their own
        // instances meanwhile: only applies after the read count, see rerunAfterKill).
        snapshot = await completedSteps(client);
      }
      takeoverMs ??= takeover();
      if (heapDir !== undefined && !heapTaken && done >= target * 0.6) {
        heapTaken = true;
        agents[agents.length - 1]?.child.kill('SIGUSR2');
      }
      await sleep(2000);
    }
    takeoverMs ??= takeover();
    const allCompleteMs = Date.now() - started;
    const trace = killedAt !== undefined && victim !== undefined
      ? takeoverTrace({
        survivors: agents.filter((a) => a !== victim).map((a) => a.views), killedAt, victimId: victimId(),
        victimLease: leaseWatch.changes.get(memberLeaseName('bench', victimId())) ?? [],
        victimWrites: (proxies[agents.indexOf(victim)]?.requests ?? []).filter((r) => r.method !== 'GET' && r.path.includes('/leases/baton-member-')),
      })
      : undefined;
    doneNow = target;
    phantoms?.stop();
    // Member lease renewals (PUT) as the proxies saw them: from their arrival to the answer sent on
    // (the API server's share of a renewal; the agent's own share is in its `renewal took` warnings).
    const renewals = proxies.flatMap((p) => p.requests.filter((r) => r.method === 'PUT' && r.path.includes('/leases/baton-member-')).map((r) => r.ms ?? Infinity)).sort((a, b) => a - b);
    const renewalAt = (q: number): number | null => renewals.length === 0 ? null : Math.min(renewals[Math.min(renewals.length - 1, Math.floor(q * renewals.length))] ?? 0, 1e9);
    const renewalWarnings = agents.map((a) => a.logs.filter((l) => /member lease renewal (took|failed)/.test(l)).length);
    // Time between one renewal of a member's Lease and its next, as they reached the proxy (the retry
    // period, 2 s, plus what delayed the renewal: before the Lease thread, the agent's busy event loop).
    const gaps = proxies.flatMap((p) => {
      const at = new Map<string, number[]>();
      for (const r of p.requests) if (r.method === 'PUT' && r.path.includes('/leases/baton-member-')) at.set(r.path, [...(at.get(r.path) ?? []), r.at]);
      return [...at.values()].flatMap((times) => times.slice(1).map((t, i) => t - (times[i] ?? t)));
    }).sort((a, b) => a - b);
    const gapAt = (q: number): number | null => gaps.length === 0 ? null : gaps[Math.min(gaps.length - 1, Math.floor(q * gaps.length))] ?? null;
    const lostLeases = agents.map((a) => a.logs.filter((l) => /lost the member lease/.test(l)).length).reduce((x, y) => x + y, 0);
    const cpu = cpuBreakdown ? cpuUntilNow(agents, victim, killedAt !== undefined, cluster.pid, cpuAtStart, shim) : undefined;
    const rssAtCompleteKiB = agents.map((a) => currentRssKiB(a.child.pid));
    const peakAtCompleteKiB = agents.map((a) => rssKiB(a.child.pid));
    // CPU until every instance is COMPLETE, per instance: the agents (and the git processes they ran), the simulated API server.
    const agentCpu = agents.map((a) => cpuSeconds(a.child.pid));
    const clusterCpu = cpuSeconds(cluster.pid).self;
    // Agents that exited on their own (a lost lease on an overloaded machine...), reported above with their last words.
    const exitedEarly = agents.filter((a) => a !== (killedAt !== undefined ? victim : undefined) && (a.child.exitCode !== null || a.child.signalCode !== null));

    // Completed steps applied again after the kill (a step in flight at the kill may rightly run again).
    const rerun = killedAt !== undefined && victim !== undefined ? rerunAfterKill(proxies.map((p) => p.requests), agents.indexOf(victim), killedAt, keys, snapshot) : undefined;
    const rerunSteps = rerun?.victimApplies ?? 0;
    // Status commits lost: runs COMPLETE in their checkpoint without their plan-complete commit; defects of the record.
    await sleep(3000);
    const history = checkHistory(env, origin);
    const checkpoints = new ConfigMapCheckpointStore(client);
    let lost = 0;
    for (const k of keys) {
      const run = (await checkpoints.load(k))?.checkpoint.active;
      if (run?.state.status === 'COMPLETE' && !(history.runs.get(run.id) ?? []).some((c) => c.event === 'plan-complete')) lost++;
    }
    const statusAuthors = new Set(history.commits.map((c) => c.author));
    // The agents' API calls by method and resource (names and query left out), most first.
    const byRoute = new Map<string, number>();
    // Checkpoint ConfigMaps are told from the instances' own (`configmaps/<checkpoint>`).
    for (const r of proxies.flatMap((p) => p.requests)) { const route = `${r.method} ${(r.path.split('?')[0] ?? '').replace(/\/configmaps\/baton-checkpoint-[^/]+/, '/configmaps/<checkpoint>').replace(/\/(namespaces|configmaps|deployments|leases|events)\/(?!<checkpoint>)[^/]+/g, '/$1/*')}${/watch=(1|true)/.test(r.path) ? ' (watch)' : ''}`; byRoute.set(route, (byRoute.get(route) ?? 0) + 1); }
    const apiCallsPerInstanceByRoute = Object.fromEntries([...byRoute].sort((a, b) => b[1] - a[1]).map(([route, count]) => [route, Math.round((count / target) * 100) / 100]).filter(([, perInstance]) => (perInstance as number) >= 0.01));
    if (profDir !== undefined) writeFileSync(join(profDir, 'api-calls.txt'), [...byRoute].sort((a, b) => b[1] - a[1]).map(([route, count]) => `${count}\t${route}`).join('\n'));
    if (profDir !== undefined) writeFileSync(join(profDir, 'origin-log.txt'), git(env, origin, 'log', '--format=%ct %an %(trailers:key=Baton-Instance,valueonly,separator=%x2C) %(trailers:key=Baton-Event,valueonly,separator=%x2C)', 'main'));

    // Idle poll of the repository by an agent vs a bare git fetch, alternating.
    stopping = true;
    for (const a of agents) a.child.kill('SIGTERM');
    await Promise.all(agents.map((a) => Promise.race([a.exited, sleep(30_000)])));
    // With phantom members most instances were never deployed: an idle poll would deploy them.
    const idleFigures = phantoms === undefined ? await idlePoll({ dir, env, origin, client, checkpoints, renderer, keepRepo }) : undefined;
    return {
      instances: n,
      ...(phantoms !== undefined ? { phantomMembers: phantomCount, instancesOfAgents: target } : {}),
      agents: agentCount,
      agentsExitedOnTheirOwn: exitedEarly.map((a) => a.name),
      concurrency,
      allCompleteSeconds: Math.round(allCompleteMs / 100) / 10,
      peakRssMiBPerAgent: agents.map((a) => Math.round(a.peakKiB / 1024)),
      rssMiBAtCompletePerAgent: rssAtCompleteKiB.map((k) => Math.round(k / 1024)),
      peakRssMiBUntilCompletePerAgent: peakAtCompleteKiB.map((k) => Math.round(k / 1024)),
      peakRssReachedPerAgent: agents.map((a) => a.peakAt ?? null),
      peakRssMiBSandboxPerAgent: agents.map((a) => Math.round(a.childrenPeakKiB / 1024)),
      lostStatusCommits: lost,
      historyDefects: history.defects.length,
      statusAuthors: statusAuthors.size,
      // Transitions on the branch and the commits recording them (a shard member records several per commit).
      statusTransitions: history.commits.length, statusCommits: new Set(history.commits.map((c) => c.sha)).size,
      takeoverSeconds: takeoverMs === undefined ? null : Math.round(takeoverMs / 100) / 10,
      ...(trace !== undefined ? { takeoverTrace: trace } : {}),
      leaseDurationSeconds: leaseSeconds,
      ...(agentNodeOptions !== undefined ? { agentNodeOptions } : {}),
      killAtFraction: kill ? killAt : null,
      rerunSteps,
      ...(rerun !== undefined ? { rerunAfterKill: rerun } : {}),
      // Every API call of the agents (the recording proxies), per instance: reads, writes and watches.
      agentCpuMsPerInstance: Math.round((agentCpu.reduce((sum, c) => sum + c.self, 0) * 1000) / target),
      agentGitCpuMsPerInstance: Math.round((agentCpu.reduce((sum, c) => sum + c.children, 0) * 1000) / target),
      clusterCpuMsPerInstance: Math.round((clusterCpu * 1000) / target),
      apiCallsPerInstance: Math.round((proxies.reduce((sum, p) => sum + p.requests.length, 0) / target) * 10) / 10,
      // The same by method and route (names left out, checkpoints told apart), those of at least 0.01 per instance.
      apiCallsPerInstanceByRoute,
      leaseRenewalsAtProxy: { count: renewals.length, p50Ms: renewalAt(0.5), p99Ms: renewalAt(0.99), maxMs: renewalAt(1) },
      leaseRenewalWarningsPerAgent: renewalWarnings,
      leaseRenewalGapsAtProxy: { p50Ms: gapAt(0.5), p99Ms: gapAt(0.99), maxMs: gapAt(1) },
      lostMemberLeases: lostLeases,
      ...idleFigures,
      ...(heapDir !== undefined ? { heapSnapshotDir: heapDir } : {}),
      ...(profDir !== undefined ? { cpuProfileDir: profDir } : {}),
      ...(cpu !== undefined ? { cpuSecondsUntilComplete: cpu } : {}),
      loadAverageBefore: Math.round(loadBefore * 10) / 10,
      loadAverageAfter: Math.round((loadavg()[0] ?? 0) * 10) / 10,
    };
  } finally {
    leaseWatch.stop();
    phantoms?.stop();
    clearInterval(sampler);
    for (const a of agents) a.child.kill('SIGKILL');
    for (const p of proxies) await p.close();
    await renderer.close();
    client.close();
    await stopClusterProcess(cluster);
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * CPU seconds from the agents' start until now by process category (see `--cpu-breakdown`). The
 * killed agent counts with what it had used at its kill (it is also among this process's reaped
 * children then, and is taken out of them).
 */
function cpuUntilNow(agents: readonly AgentProc[], victim: AgentProc | undefined, killed: boolean, clusterPid: number | undefined,
  start: { bench: NodeJS.CpuUsage; benchChildren: number; cluster: number; machine: number }, shim: GitShim | undefined): Record<string, unknown> {
  for (const a of agents) if (!(killed && a === victim)) { const t = procTimes(a.child.pid); if (t.self > 0) a.cpu = t; }
  const bench = process.cpuUsage(start.bench);
  const victimTotal = killed && victim ? victim.cpu.self + victim.cpu.children : 0;
  const perAgent = agents.map((a) => ({
    node: round1(a.cpu.self), childrenReaped: round1(a.cpu.children), sandboxLive: round1([...a.sandboxCpu.values()].reduce((s, x) => s + x, 0)),
  }));
  const git = shim ? gitCpuBySubcommand(shim.log) : {};
  const ours = {
    agentsNode: round1(perAgent.reduce((s, a) => s + a.node, 0)),
    agentsChildren: round1(perAgent.reduce((s, a) => s + a.childrenReaped + a.sandboxLive, 0)),
    agentsGit: round1(Object.values(git).reduce((s, g) => s + g.cpuSeconds, 0)),
    cluster: round1(procTimes(clusterPid).self - start.cluster),
    benchAndProxies: round1((bench.user + bench.system) / 1e6),
    benchGit: round1(Math.max(0, procTimes('self').children - start.benchChildren - victimTotal)),
  };
  const machine = machineBusySeconds() - start.machine;
  const counted = ours.agentsNode + ours.agentsChildren + ours.cluster + ours.benchAndProxies + ours.benchGit;
  return { ...ours, machineBusy: round1(machine), otherProcesses: round1(machine - counted), perAgent, agentsGitBySubcommand: git };
}

/**
 * Every checkpoint in one list. It was one get per instance, in a row (seconds at 1,000 under load):
 * a survivor that applied and completed its own instance's steps meanwhile had them read COMPLETE
 * and counted as applied again (all 8 "rerun" steps of a run on 2026-11-24, docs/scale-out.md).
 */
/**
 * Every checkpoint's COMPLETE steps, read in pages of 100 with a turn of this process's event loop
 * between them. One list of them all (1,000 checkpoints, one answer parsed at once) held the simulated
 * API server's one event loop and this process's (the agents' recording proxies, and the reading of
 * their stderr, which blocks an agent that writes to a full pipe) for seconds at the moment of the
 * kill: the survivors' sighting of the killed member's last renewal came that much later, and so did
 * the takeover (docs/scale-out.md, Takeover).
 */
async function completedSteps(client: Awaited<ReturnType<typeof createKubeClient>>): Promise<Snapshot> {
  const steps = new Map<string, Set<string>>();
  let next: string | undefined;
  do {
    const page = await client.list('v1', 'ConfigMap', undefined, { labelSelector: `${CHECKPOINT_LABEL}=true`, limit: 100, ...(next !== undefined ? { continue: next } : {}) });
    for (const cm of page.items) {
      const key = instanceOfCheckpoint(cm);
      if (key === undefined) continue;
      const run = parseCheckpointConfigMap(cm, key).checkpoint.active;
      const done = new Set<string>();
      for (const phase of run?.phases ?? []) for (const step of phase.steps) if (step.state.status === 'COMPLETE') done.add(step.name);
      steps.set(`${key.namespace}/${key.name}`, done);
    }
    next = page.continue;
    await new Promise<void>((resolve) => setImmediate(resolve));
  } while (next !== undefined && next !== '');
  // After the last page: an apply recorded after this came after every page was read.
  return { steps, readAt: Date.now() };
}

/**
 * `--phantom-members`: member Leases of the bench's shard set, renewed every 2 s by this process and
 * never publishing a view, so that the agents count them as live members and act only on their share
 * (an instance a phantom wins is never acted on). A view-less member claims nothing, so nothing waits on them.
 */
async function startPhantoms(client: KubeClient, count: number, config: { repo: string; branch: string }, leaseSeconds: number): Promise<{ ids: string[]; stop: () => void }> {
  const namespace = 'baton-system';
  if ((await client.get({ apiVersion: 'v1', kind: 'Namespace', name: namespace })) === undefined) await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
  const leases: KubeObject[] = [];
  for (let i = 0; i < count; i++) {
    const identity = `phantom-${i}`;
    const id = memberIdOf(identity);
    const now = new Date().toISOString().replace('Z', '000Z');
    leases.push(await client.create({
      apiVersion: 'coordination.k8s.io/v1', kind: 'Lease',
      metadata: { name: memberLeaseName('bench', id), namespace, labels: { 'app.kubernetes.io/managed-by': 'baton', [SHARD_SET_LABEL]: 'bench' },
        annotations: { [CONFIG_HASH_ANNOTATION]: configHashOf(config), [CONFIG_ANNOTATION]: configTextOf(config), [MEMBER_ID_ANNOTATION]: id } },
      spec: { holderIdentity: identity, leaseDurationSeconds: leaseSeconds, acquireTime: now, renewTime: now, leaseTransitions: 0 },
    }));
  }
  let stopped = false;
  const renew = async (): Promise<void> => {
    for (let i = 0; i < leases.length && !stopped; i++) {
      const last = leases[i];
      if (last === undefined) continue;
      try {
        leases[i] = await client.update({ ...last, spec: { ...(last.spec as Record<string, unknown>), renewTime: new Date().toISOString().replace('Z', '000Z') } });
      } catch (err) {
        process.stderr.write(`phantom member renewal failed: ${String(err)}\n`);
      }
    }
  };
  const timer = setInterval(() => void renew(), 2000);
  return { ids: leases.map((l) => String(l.metadata.annotations?.[MEMBER_ID_ANNOTATION])), stop: () => { stopped = true; clearInterval(timer); } };
}

/** An idle poll of the finished repository by an agent vs a bare `git fetch` of it, alternating (medians of 11). */
async function idlePoll(o: { dir: string; env: NodeJS.ProcessEnv; origin: string; client: KubeClient; checkpoints: ConfigMapCheckpointStore; renderer: Renderer; keepRepo: string | undefined }): Promise<Record<string, number>> {
  const { dir, env, origin, client, checkpoints, renderer, keepRepo } = o;
  const mirror = new GitMirror({ dir: join(dir, 'idle'), remote: { url: origin, auth: { kind: 'none' } }, env });
  const idle = new Agent({ mirror, branch: 'main', client, checkpoints, hooks: defaultHooks(), renderer, author: { name: 'Bench', email: 'b@example.com' }, concurrency: 16 });
  await idle.start();
  await idle.pass();
  const fetchDir = join(dir, 'plain-fetch.git');
  git(env, dir, 'init', '--bare', '--quiet', fetchDir);
  git(env, fetchDir, 'fetch', '--quiet', origin, '+refs/heads/main:refs/remotes/origin/main');
  if (keepRepo !== undefined) git(env, dir, 'clone', '--bare', '--quiet', '--no-local', origin, keepRepo);
  const pollMs: number[] = [];
  const fetchMs: number[] = [];
  // The agent's fetch alone (its mirror, no agent logic): tells a slow fetch from work beside it.
  const mirrorFetchMs: number[] = [];
  const timed = async (into: number[], op: () => Promise<unknown>): Promise<void> => {
    const t = performance.now();
    await op();
    into.push(performance.now() - t);
  };
  const steps = [
    () => timed(pollMs, async () => {
      const r = await idle.pass();
      if (r.reports.length > 0) throw new Error(`an idle poll ran plans: ${r.reports.map((x) => `${x.instance} ${x.outcome.kind}`).slice(0, 5).join(', ')}`);
    }),
    () => timed(fetchMs, () => Promise.resolve(git(env, fetchDir, 'fetch', '--quiet', '--no-tags', origin, '+refs/heads/main:refs/remotes/origin/main'))),
    () => timed(mirrorFetchMs, () => mirror.fetch('main')),
  ];
  // The order turns every round, so that no measurement always comes first (or after the same one).
  for (let i = 0; i < 11; i++) for (let j = 0; j < steps.length; j++) await steps[(i + j) % steps.length]?.();
  await idle.stop();
  const poll = median(pollMs);
  const fetch = median(fetchMs);
  return { idlePollMs: Math.round(poll), bareFetchMs: Math.round(fetch), idleMirrorFetchMs: Math.round(median(mirrorFetchMs)), idlePollVsFetch: Math.round((poll / fetch) * 100) / 100 };
}

/**
 * Every change of the shard set's member Leases, per Lease name, as a watch of this process sees it
 * (bench/_takeover.ts, LeaseChange). Watches again from the last version when the server ends one.
 */
function watchMemberLeases(client: KubeClient, shardSet: string): { changes: Map<string, LeaseChange[]>; stop: () => void } {
  const changes = new Map<string, LeaseChange[]>();
  const abort = new AbortController();
  const own = client.withOwnConnection?.() ?? client;
  void (async () => {
    let resourceVersion: string | undefined;
    while (!abort.signal.aborted) {
      try {
        for await (const e of own.watch('coordination.k8s.io/v1', 'Lease', undefined, { labelSelector: `${SHARD_SET_LABEL}=${shardSet}`, signal: abort.signal, ...(resourceVersion ? { resourceVersion } : {}) })) {
          const rv = e.object.metadata.resourceVersion ?? '';
          resourceVersion = rv;
          // A deletion is the cleanup of a gone member's Lease, not a renewal.
          if (e.type === 'BOOKMARK' || e.type === 'DELETED') continue;
          const name = e.object.metadata.name ?? '';
          const spec = e.object.spec as { renewTime?: unknown } | undefined;
          const renew = typeof spec?.renewTime === 'string' ? Date.parse(spec.renewTime) : undefined;
          const list = changes.get(name) ?? [];
          list.push({ at: Date.now(), resourceVersion: rv, renewTime: renew });
          changes.set(name, list);
        }
      } catch {
        if (!abort.signal.aborted) await sleep(500);
      }
    }
  })();
  return { changes, stop: () => abort.abort() };
}
