/**
 * `npm run bench -- render [--n 1000] [--rounds 5] [--concurrency all|N]`: renders N instances of the ZooKeeper
 * framework (latest version under frameworks/zookeeper/) through the real pipeline (parameter resolution, sandbox,
 * YAML parsing, checks, enhancement) and, in the same run, the floor: the same templates compiled once with bare
 * EJS, run in-process with no isolation and no checks, their output parsed with js-yaml.
 * By default the pipeline is asked for all N plans at once (as the drift keeper asks for every due instance after a
 * start); `--concurrency N` renders as the agent's instance workers do instead: at most N plans at once, each caller
 * taking the next instance when its plan is done (the agent's `--concurrency`: default 4, 16 in the 1,000-instance
 * and scale-out runs). The floor renders one instance after another, in-process and synchronously, at every setting.
 * Rounds alternate floor and pipeline; each side's median round is reported.
 * Figures: {n, rounds, concurrency, perSecond, floorPerSecond, ratioToFloor, cpu..., allRounds, loadAverage}; the
 * targets are ratioToFloor <= 2 and cpuRatioToFloor <= 2 on an idle machine. loadAverage is the 1-minute load when
 * the run ended.
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';
import { loadAll, CORE_SCHEMA } from 'js-yaml';
import { numberArg, stringArg } from './_args.js';
import { DirectoryTree, Renderer, latestVersion, listFrameworks, loadFramework, renderPlan, resolveParams, selectorLabels, standardLabels, type Framework } from '../src/render/index.js';
import { compileTemplate } from '../src/render/sandbox/compile.js';
import { PRELUDE } from '../src/render/sandbox/prelude.js';

const REPO = fileURLToPath(new URL('..', import.meta.url));

async function zookeeper(): Promise<Framework> {
  const tree = new DirectoryTree(REPO);
  const versions = (await listFrameworks(tree)).filter((f) => f.name === 'zookeeper').map((f) => f.version);
  const version = latestVersion(versions);
  if (!version) throw new Error('frameworks/zookeeper is missing');
  const fw = await loadFramework(tree, 'zookeeper', version);
  if (!fw.ok) throw new Error(fw.problems.map((p) => p.message).join('\n'));
  return fw.value;
}

function instanceValues(i: number): { name: string; namespace: string; values: Record<string, unknown> } {
  return { name: `zk-${i}`, namespace: `team-${i % 10}`, values: { REPLICAS: 3 + (i % 3), MEMORY: `${256 + (i % 4) * 128}Mi` } };
}

/** Renders instances 0..n-1, at most `concurrency` at once (Infinity: all at once); the number of objects rendered. */
async function realPipeline(fw: Framework, renderer: Renderer, n: number, concurrency: number): Promise<number> {
  const renderOne = async (i: number): Promise<number> => {
    const inst = instanceValues(i);
    const resolved = resolveParams(fw.params, inst.values);
    if (resolved.problems.length > 0) throw new Error(resolved.problems[0]!.message);
    const r = await renderPlan({ framework: fw, instance: inst, params: resolved.values, sensitiveValues: resolved.sensitiveValues, plan: 'deploy', renderer });
    if (!r.ok) throw new Error(r.problems.map((p) => `${p.code} ${p.file}:${p.line} ${p.message}`).join('\n'));
    return r.plan.phases.reduce((sum, ph) => sum + ph.steps.reduce((s, st) => s + st.actions.length, 0), 0);
  };
  // All at once: exactly the method before --concurrency existed.
  if (concurrency >= n) return (await Promise.all(Array.from({ length: n }, (_, i) => renderOne(i)))).reduce((a, b) => a + b, 0);
  let objects = 0;
  let next = 0;
  // Like the agent's instance workers (src/sync/semaphore.ts): a caller renders one plan, uses it, then takes the next.
  const caller = async (): Promise<void> => {
    while (next < n) {
      const rendered = await renderOne(next++);
      objects += rendered;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, caller));
  return objects;
}

/** `--concurrency N` (a positive integer) or `all` (the default). */
function concurrencyArg(args: string[]): number {
  const raw = stringArg(args, 'concurrency');
  if (raw === undefined || raw === 'all') return Number.POSITIVE_INFINITY;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`--concurrency expects a positive integer or "all", got ${raw}`);
  return value;
}

type HostTemplate = (locals: Record<string, unknown>, escapeFn: (v: unknown) => string, include: (name: string, extra?: Record<string, unknown>) => string, rethrow: (e: unknown) => never) => string;

/** The floor: bare EJS functions in this realm, helpers as plain globals, js-yaml parsing, nothing else. */
function floor(fw: Framework): (n: number) => number {
  const helperContext = vm.createContext({});
  // The sandbox's own helpers and context escapers (the same code the pipeline runs), evaluated here.
  const api = vm.runInContext(PRELUDE, helperContext) as { scope(): Record<string, unknown> };
  // Compiled templates bind helpers, escapers and common built-ins once (see TEMPLATE_BUILTINS); give them the host's built-ins.
  const builtins = { Object, Array, String, Number, Boolean, JSON, Math, parseInt, parseFloat, isNaN, isFinite, Error };
  const scope = { ...api.scope(), ...builtins };
  const fns = new Map<string, HostTemplate>();
  for (const [name, t] of fw.templates) {
    const c = compileTemplate(t);
    if (c.ok) fns.set(name, (vm.runInThisContext(c.compiled.src) as (s: Record<string, unknown>) => HostTemplate)(scope));
  }
  const escape = (v: unknown): string => (v === undefined || v === null ? 'null' : typeof v === 'number' || typeof v === 'boolean' ? `${v}` : (JSON.stringify(v) ?? 'null'));
  const rethrow = (e: unknown): never => {
    throw e;
  };
  const plan = fw.decl.plans.deploy!;
  const tasks = new Map(fw.decl.tasks.map((t) => [t.name, t]));
  const renders = plan.phases.flatMap((ph) => ph.steps.flatMap((st) => st.tasks.flatMap((t) => (tasks.get(t)?.resources ?? []).map((r) => ({ template: r, phase: ph.name, step: st.name })))));
  return (n) => {
    let objects = 0;
    for (let i = 0; i < n; i++) {
      const inst = instanceValues(i);
      const params: Record<string, unknown> = {};
      for (const p of fw.params) params[p.name] = inst.values[p.name] ?? p.default;
      for (const r of renders) {
        const locals: Record<string, unknown> = {
          instance: { name: inst.name, namespace: inst.namespace },
          framework: { name: fw.name, version: fw.version, appVersion: fw.decl.appVersion },
          params,
          plan: { name: 'deploy', phase: r.phase, step: r.step, args: {} },
          labels: standardLabels(fw.name, inst.name, fw.version),
          selectorLabels: selectorLabels(fw.name, inst.name),
        };
        const include = (name: string, extra?: Record<string, unknown>): string => {
          const fn = fns.get(name) ?? fns.get(`${name}.ejs`) ?? fns.get(`${name}.yaml.ejs`);
          if (!fn) throw new Error(`no template ${name}`);
          return fn({ ...locals, ...extra }, escape, include, rethrow);
        };
        const text = fns.get(r.template)!(locals, escape, include, rethrow);
        loadAll(text, (d) => void (d !== null && objects++), { schema: CORE_SCHEMA });
      }
    }
    return objects;
  };
}

export async function run(args: string[]): Promise<Record<string, unknown>> {
  const n = numberArg(args, 'n', 1000);
  const rounds = numberArg(args, 'rounds', 5);
  const concurrency = concurrencyArg(args);
  const fw = await zookeeper();
  // No render cache: every round renders the same instances again, and a cache would answer them all.
  const renderer = new Renderer({ cacheEntries: 0 });
  try {
    const runFloor = floor(fw);
    // Warm up both (worker start, JIT), then measure.
    runFloor(Math.min(n, 200));
    await realPipeline(fw, renderer, Math.min(n, 200), concurrency);
    // CPU time (all threads of this process plus the sandbox process) as well as wall time: on a shared machine wall time mostly
    // measures the scheduler, CPU time still compares the work done. Rounds alternate floor and real
    // pipeline and each side reports its median round, so neither profits from going first or from a
    // lucky garbage collection.
    const cpuMs = (u: NodeJS.CpuUsage): number => (u.user + u.system) / 1000;
    const floorRounds: { seconds: number; cpuMs: number; objects: number }[] = [];
    const realRounds: { seconds: number; cpuMs: number; objects: number }[] = [];
    for (let round = 0; round < rounds; round++) {
      let t = performance.now();
      let cpu = process.cpuUsage();
      const floorObjects = runFloor(n);
      floorRounds.push({ seconds: (performance.now() - t) / 1000, cpuMs: cpuMs(process.cpuUsage(cpu)), objects: floorObjects });
      t = performance.now();
      cpu = process.cpuUsage();
      const sandboxBefore = sandboxCpuMs(renderer);
      const objects = await realPipeline(fw, renderer, n, concurrency);
      realRounds.push({ seconds: (performance.now() - t) / 1000, cpuMs: cpuMs(process.cpuUsage(cpu)) + sandboxCpuMs(renderer) - sandboxBefore, objects });
    }
    const median = <T extends { seconds: number }>(xs: T[]): T => [...xs].sort((x, y) => x.seconds - y.seconds)[Math.floor(xs.length / 2)]!;
    const floorMedian = median(floorRounds);
    const realMedian = median(realRounds);
    const { seconds, objects } = realMedian;
    const realCpuMs = realMedian.cpuMs;
    const floorSeconds = floorMedian.seconds;
    const floorCpuMs = floorMedian.cpuMs;
    const floorObjects = floorMedian.objects;
    const perSecond = Math.round(n / seconds);
    const floorPerSecond = Math.round(n / floorSeconds);
    return {
      n,
      rounds,
      concurrency: Number.isFinite(concurrency) ? concurrency : 'all',
      framework: `zookeeper@${fw.version}`,
      objectsPerInstance: objects / n,
      floorObjectsPerInstance: floorObjects / n,
      perSecond,
      floorPerSecond,
      ratioToFloor: Number((floorPerSecond / perSecond).toFixed(2)),
      cpuMsPerInstance: Number((realCpuMs / n).toFixed(3)),
      floorCpuMsPerInstance: Number((floorCpuMs / n).toFixed(3)),
      cpuRatioToFloor: Number((realCpuMs / floorCpuMs).toFixed(2)),
      // Every round, not only the medians (issue 14: "median of 5 runs, all printed"). CPU ratios per round
      // compare a pipeline round with the floor round just before it.
      allRounds: realRounds.map((real, i) => {
        const fl = floorRounds[i]!;
        return {
          perSecond: Math.round(n / real.seconds),
          floorPerSecond: Math.round(n / fl.seconds),
          ratioToFloor: Number((fl.seconds === 0 ? 0 : real.seconds / fl.seconds).toFixed(2)),
          cpuMsPerInstance: Number((real.cpuMs / n).toFixed(3)),
          floorCpuMsPerInstance: Number((fl.cpuMs / n).toFixed(3)),
          cpuRatioToFloor: Number((real.cpuMs / fl.cpuMs).toFixed(2)),
        };
      }),
      loadAverage: Number(loadavg()[0]!.toFixed(2)),
    };
  } finally {
    await renderer.close();
  }
}

/** CPU time of the sandbox child process so far (Linux /proc; 0 elsewhere). */
function sandboxCpuMs(renderer: Renderer): number {
  const pid = renderer.sandboxPid();
  if (pid === undefined) return 0;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    // utime and stime are fields 14 and 15 of stat (11 and 12 after the command), in clock ticks of 10 ms.
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return 0;
  }
}
