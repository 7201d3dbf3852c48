/**
 * The host side of the template sandbox: one sandbox process at a time, created lazily, fed batches of
 * render jobs coalesced from everything queued in the same turn of the event loop (so rendering 1,000
 * instances costs a handful of messages, not 1,000 round trips). A batch that times out or kills the
 * sandbox (memory) is retried job by job, then render by render, so the failure lands on the template
 * that caused it while the others still render. The host never runs template code.
 *
 * A child process, not a worker thread: a worker's `resourceLimits` are best effort, and one large
 * allocation (`new Array(2 ** 28).fill(0)`) aborted the WHOLE process with "heap out of memory"
 * (nodejs/node#47224). A child's heap limit (`--max-old-space-size`) takes down only the child.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { CompiledTemplate } from './compile.js';
import { RenderCache } from '../render-cache.js';
import { PRELUDE } from './prelude.js';
import { WORKER_SOURCE } from './worker-source.js';
import { FrameReader, sections } from './frames.js';

export interface PlanLocals {
  name: string;
  phase: string;
  step: string;
  args: Record<string, string>;
}

export interface BaseLocals {
  instance: { name: string; namespace: string };
  framework: { name: string; version: string; appVersion: string };
  params: Record<string, unknown>;
  labels: Record<string, string>;
  selectorLabels: Record<string, string>;
  /** Outputs of the framework's Pipe tasks: `pipes.<task>.<file>` (docs/composition.md). */
  pipes?: Record<string, Record<string, string>>;
}

export interface SandboxRender {
  key: string;
  file: string;
  plan: PlanLocals;
}

export interface SandboxJob {
  base: BaseLocals;
  renders: SandboxRender[];
  /** Template name -> compiled key, for `include()`. */
  partials: Record<string, string>;
  /** Every compiled template the job may need (renders and partials). */
  defines: CompiledTemplate[];
}

/** Extra wait for a batch sent before its process is set up: seen under load 20, a restart after a crash took longer than the stall limit. */
const STARTUP_ALLOWANCE_MS = 20_000;

export type FailureKind = 'runtime' | 'undefined' | 'value' | 'output' | 'yaml' | 'alias' | 'timeout' | 'memory' | 'internal';

export type RenderOutput =
  | { ok: true; docs: { index: number; value: unknown }[] }
  | { ok: false; kind: FailureKind; file: string; line: number; column?: number; message: string; outputLine?: number; outputText?: string };

export interface RendererOptions {
  /** Wall-clock limit for one batch and for one template render (ms). Default 2000. */
  timeoutMs?: number;
  /** Heap limit of the sandbox process (MiB). Default 256. */
  memoryMb?: number;
  /** Most jobs per worker message. Default 64. */
  maxBatch?: number;
  /** Extra Node flags for the sandbox process (default none), e.g. `--cpu-prof` when profiling the sandbox. */
  execArgv?: string[];
  /** Rendered plans kept by their inputs (see render-cache.ts); default 512, 0 turns the cache off. */
  cacheEntries?: number;
}

/**
 * A job's outputs, parsed when called: call it once (a second call answers `internal` failures). It lets go of
 * the reply's text and of the parsed outputs once called, so a promise holding it keeps nothing alive (see runDeferred).
 */
export type TakeOutputs = () => RenderOutput[];

interface Pending {
  job: SandboxJob;
  deliver: (take: TakeOutputs) => void;
}

type WorkerReply = { id: number; results: (() => RenderOutput[])[] } | { id: number; failure: { kind: 'timeout' | 'internal'; message: string; where: string } };

interface Inflight {
  id: number;
  batch: Pending[];
}

interface Live {
  child: ChildProcess;
  /**
   * Compiled templates this process has, by key, with the number they go by on the wire: a render names its
   * template by that number instead of its key (a content id and a path, ~100 characters, for every render
   * and include table of every job: a third of what a batch sent).
   */
  ids: Map<string, number>;
  /** Include tables (template name -> number) already translated, by the job's table. */
  tables: WeakMap<Record<string, string>, Record<string, number>>;
  /** Up to two batches in flight, so host work on one overlaps sandbox work on the next. */
  inflight: Map<number, Inflight>;
  /** The end of the sandbox's stderr: V8 prints "heap out of memory" there before aborting. */
  stderr: string;
  /** Set when the host killed the sandbox because a batch outlived the watchdog. */
  stalled: boolean;
  watchdog: NodeJS.Timeout | undefined;
  /** Whether the process said it is set up: until then its start-up (node, js-yaml, the prelude) is part of the wait. */
  started: boolean;
}

/** Semi-space size of the sandbox process (MiB): see spawn(). */
const SEMI_SPACE_MB = 32;

/** In flight at once: 2 normally; 1 while retrying, so a failure is attributed to exactly one batch. */
const MAX_INFLIGHT = 2;

const JS_YAML_PATH = createRequire(import.meta.url).resolve('js-yaml');
/** js-yaml's browser build, evaluated inside the sandbox context for fromYaml() (read once). */
let yamlSource: string | undefined;
export function sandboxYamlSource(): string {
  yamlSource ??= readFileSync(join(dirname(JS_YAML_PATH), 'dist', 'js-yaml.min.js'), 'utf8');
  return yamlSource;
}

export class Renderer {
  private readonly timeoutMs: number;
  private readonly memoryMb: number;
  private readonly maxBatch: number;
  private readonly execArgv: string[];
  private live: Live | undefined;
  private queue: Pending[] = [];
  private retry: { batch: Pending[] }[] = [];
  private scheduled = false;
  private nextId = 1;
  private closed = false;
  /** Plans rendered with this renderer, by their inputs: unchanged inputs are never rendered twice. */
  readonly cache: RenderCache;

  constructor(options: RendererOptions = {}) {
    this.cache = new RenderCache(options.cacheEntries ?? 512);
    this.timeoutMs = options.timeoutMs ?? 2000;
    this.memoryMb = options.memoryMb ?? 256;
    this.maxBatch = options.maxBatch ?? 64;
    this.execArgv = options.execArgv ?? [];
  }

  /** Renders every template of a job; one output per `job.renders` entry, in order. Never rejects. */
  async run(job: SandboxJob): Promise<RenderOutput[]> {
    return (await this.runDeferred(job))();
  }

  /**
   * Like run(), but answers with a function that parses the outputs when called (once). For callers that turn the
   * outputs into something else at once (renderPlan): the promise of a job that waited for its batch has usually
   * been promoted to V8's old generation by then, and whatever an old object holds survives every young-generation
   * collection (copied, then promoted) until the next full one, even after the promise itself is garbage. Resolved
   * with the outputs themselves, every job's parsed documents were copied twice by the host's scavenger; resolved
   * with this function, which lets go of them when called, only what the caller keeps lives on.
   */
  runDeferred(job: SandboxJob): Promise<TakeOutputs> {
    if (this.closed) return Promise.resolve(once(() => job.renders.map((r) => failure(r.file, 'internal', 'the renderer is closed'))));
    if (job.renders.length === 0) return Promise.resolve(once(() => []));
    return new Promise((deliver) => {
      this.queue.push({ job, deliver });
      this.schedule();
    });
  }

  /** The sandbox process's id while one runs (benchmarks read its CPU time). */
  sandboxPid(): number | undefined {
    return this.live?.child.pid;
  }

  /** Stops the sandbox process. Pending and later jobs fail with an `internal` output. */
  async close(): Promise<void> {
    this.closed = true;
    const live = this.live;
    this.live = undefined;
    for (const p of [...this.queue, ...this.retry.flatMap((r) => r.batch), ...[...(live?.inflight.values() ?? [])].flatMap((f) => f.batch)]) {
      p.deliver(once(() => p.job.renders.map((r) => failure(r.file, 'internal', 'the renderer was closed'))));
    }
    this.queue = [];
    this.retry = [];
    if (live) {
      live.inflight.clear();
      clearTimeout(live.watchdog);
      if (live.child.exitCode === null && live.child.signalCode === null) {
        const exited = new Promise((resolve) => live.child.once('exit', resolve));
        // Referenced again: an idle (unreferenced) sandbox would let the event loop end before its exit.
        this.idle(live, false);
        live.child.kill('SIGKILL');
        await exited;
      }
    }
  }

  private schedule(): void {
    if (this.scheduled || this.closed) return;
    this.scheduled = true;
    // setImmediate, not a microtask: lets every caller in this turn (Promise.all over instances) enqueue first.
    setImmediate(() => {
      this.scheduled = false;
      this.pump();
    });
  }

  private pump(): void {
    while (!this.closed) {
      const inflight = this.live?.inflight.size ?? 0;
      if (this.retry.length > 0) {
        if (inflight > 0) return;
        this.send(this.retry.shift()!.batch);
        continue;
      }
      if (this.queue.length === 0 || inflight >= MAX_INFLIGHT) return;
      this.send(this.queue.splice(0, this.maxBatch));
    }
  }

  private spawn(): Live {
    // Young generation: 32 MiB semi-spaces (V8 keeps up to three, ~96 MiB, on top of the old-space limit). A batch of
    // 64 plans keeps its rendered text and reply alive until it is written, so with 16 MiB the scavenger copied much
    // of it again and again: 32 took the sandbox's CPU per instance from 0.54-0.57 to 0.46 ms (alternated runs, loaded machine).
    const child = spawn(process.execPath, [`--max-old-space-size=${this.memoryMb}`, `--max-semi-space-size=${SEMI_SPACE_MB}`, ...this.execArgv, '-e', WORKER_SOURCE], {
      // No environment at all: nothing of the agent's (tokens, kubeconfig paths) is there to read.
      env: {},
      // stdin: the setup data; stdout: replies (frames.ts); IPC: batches, and the host going away.
      stdio: ['pipe', 'pipe', 'pipe', 'ipc'],
      serialization: 'advanced',
    });
    const live: Live = { child, ids: new Map(), tables: new WeakMap(), inflight: new Map(), stderr: '', stalled: false, watchdog: undefined, started: false };
    // The setup data goes through stdin, read synchronously by the sandbox before anything else.
    child.stdin?.end(JSON.stringify({ prelude: PRELUDE, jsYamlPath: JS_YAML_PATH, yamlSource: sandboxYamlSource() }));
    child.stderr?.setEncoding('utf8');
    (child.stderr as { unref?(): void } | null)?.unref?.();
    child.stderr?.on('data', (chunk: string) => { live.stderr = (live.stderr + chunk).slice(-4096); });
    const frames = new FrameReader((body) => {
      let reply: WorkerReply;
      try {
        const [header, ...jobs] = sections(body);
        const head = JSON.parse(header!()) as { id: number; failure?: Extract<WorkerReply, { failure: unknown }>['failure'] };
        // Each job's results are decoded and parsed when that job is answered (small strings, short-lived objects).
        reply = head.failure ? { id: head.id, failure: head.failure } : { id: head.id, results: jobs.map((job) => () => JSON.parse(job()) as RenderOutput[]) };
      } catch {
        // Only the worker writes to stdout (templates cannot reach it): a broken frame means a broken sandbox.
        live.child.kill('SIGKILL');
        return;
      }
      this.onReply(live, reply);
    });
    child.stdout?.on('data', (chunk: Buffer) => frames.push(chunk));
    (child.stdout as { unref?(): void } | null)?.unref?.();
    child.on('error', () => undefined);
    child.on('message', (m: unknown) => {
      if (m !== 'ready' || live.started) return;
      live.started = true;
      this.arm(live);
    });
    // 'close', not 'exit': it comes after stdout and stderr are read to their end, so a reply written before
    // the sandbox died is not lost and V8's "out of memory" message on stderr is complete.
    child.on('close', () => {
      clearTimeout(live.watchdog);
      if (this.live === live) this.live = undefined;
      const lost = [...live.inflight.values()];
      live.inflight.clear();
      // V8 aborts on a heap limit ("heap out of memory", "Allocation failed") and on one object beyond its
      // size limits ("Fatal JavaScript invalid size error", e.g. a 300-million-element array).
      const oom = /out of memory|Allocation failed|invalid (array length|size error|table size)/i.test(live.stderr);
      if (lost.length === 1) {
        const [kind, message]: [FailureKind, string] = oom
          ? ['memory', `template exceeded the sandbox memory limit (${this.memoryMb} MiB heap, or an object beyond V8's size limits)`]
          : live.stalled
            ? ['timeout', `the sandbox stopped answering ${this.stallLimit(live)} ms after the batch started: a long native operation or a heap thrashing near its ${this.memoryMb} MiB limit`]
            : ['internal', 'the sandbox process stopped'];
        this.onFailure(lost[0]!.batch, kind, message);
      } else {
        // Which of several batches killed the sandbox is unknown: retry each alone, unchanged.
        for (const f of lost) this.retry.push({ batch: f.batch });
      }
      this.pump();
    });
    this.idle(live, true);
    return live;
  }

  /** Twice the time limit plus 3 s (plus STARTUP_ALLOWANCE_MS for a new process): the vm timeout has stopped any JavaScript long before. */
  private stallLimit(live: Live): number {
    return this.stallMs() + (live.started ? 0 : STARTUP_ALLOWANCE_MS);
  }

  private stallMs(): number {
    return this.timeoutMs * 2 + 3000;
  }

  /** An idle sandbox does not keep the host's event loop alive; a busy one does. */
  private idle(live: Live, idle: boolean): void {
    // Not stdin (ended at once: ref() on a closed socket only stacks 'connect' listeners); stderr is unreferenced once in spawn().
    const handles = [live.child, live.child.channel] as ({ ref?(): unknown; unref?(): unknown } | null | undefined)[];
    for (const h of handles) {
      if (idle) h?.unref?.();
      else h?.ref?.();
    }
  }

  /**
   * The vm timeout inside the sandbox stops JavaScript; a native operation or a heap thrashing near its
   * limit is not JavaScript. A batch that gets no answer long after its time limit kills the sandbox.
   */
  private arm(live: Live): void {
    clearTimeout(live.watchdog);
    if (live.inflight.size === 0) return;
    live.watchdog = setTimeout(
      () => {
        live.stalled = true;
        live.child.kill('SIGKILL');
      },
      // A fresh process first starts node and loads its setup: on a loaded machine that alone took several seconds.
      this.stallLimit(live),
    );
    live.watchdog.unref();
  }

  private send(batch: Pending[]): void {
    const live = (this.live ??= this.spawn());
    const id = this.nextId++;
    const defines: { key: number; file: string; src: string }[] = [];
    for (const p of batch) {
      for (const d of p.job.defines) {
        if (!live.ids.has(d.key)) {
          const n = live.ids.size + 1;
          live.ids.set(d.key, n);
          defines.push({ key: n, file: d.file, src: d.src });
        }
      }
    }
    const input = JSON.stringify(batch.map((p) => ({ base: p.job.base, renders: p.job.renders.map((r) => ({ key: live.ids.get(r.key) ?? 0, plan: r.plan })), partials: this.table(live, p.job.partials) })));
    live.inflight.set(id, { id, batch });
    this.idle(live, false);
    this.arm(live);
    live.child.send({ id, defines, input, timeoutMs: this.timeoutMs });
  }

  /** A job's include table with template numbers of this process (translated once per table and process). */
  private table(live: Live, partials: Record<string, string>): Record<string, number> {
    let t = live.tables.get(partials);
    if (t === undefined) {
      t = {};
      for (const name of Object.keys(partials)) t[name] = live.ids.get(partials[name]!) ?? 0;
      live.tables.set(partials, t);
    }
    return t;
  }

  private onReply(live: Live, reply: WorkerReply): void {
    const inflight = live.inflight.get(reply.id);
    if (!inflight) return;
    live.inflight.delete(reply.id);
    this.arm(live);
    if (live.inflight.size === 0) this.idle(live, true);
    if ('results' in reply) {
      // Each job parses its own results when its caller takes them: one job's objects at a time, not a batch's.
      inflight.batch.forEach((p, i) => {
        const results = reply.results[i];
        p.deliver(once(() => {
          let out: RenderOutput[] | undefined;
          try {
            out = results?.();
          } catch {
            out = undefined;
          }
          return out ?? p.job.renders.map((r) => failure(r.file, 'internal', 'missing result'));
        }));
      });
    } else {
      this.onFailure(inflight.batch, reply.failure.kind, reply.failure.message);
    }
    this.pump();
  }

  /** Narrows a failed batch: many jobs -> one job each; one job of many renders -> one render each. */
  private onFailure(batch: Pending[], kind: FailureKind, message: string): void {
    const only = batch[0];
    if (batch.length > 1) {
      for (const p of batch) this.retry.push({ batch: [p] });
    } else if (only && only.job.renders.length > 1) {
      const parts = only.job.renders.map((r) => ({ ...only.job, renders: [r] }));
      const outputs: RenderOutput[] = new Array<RenderOutput>(parts.length);
      let left = parts.length;
      parts.forEach((job, i) => {
        this.retry.push({
          batch: [{ job, deliver: (take) => {
            outputs[i] = take()[0] ?? failure(job.renders[0]?.file ?? '', 'internal', 'missing result');
            if (--left === 0) only.deliver(once(() => outputs));
          } }],
        });
      });
    } else if (only) {
      const file = only.job.renders[0]?.file ?? '';
      const text = kind === 'timeout' && !message.startsWith('the sandbox stopped answering') ? `template did not finish within ${this.timeoutMs} ms (endless loop?)` : message;
      only.deliver(once(() => [failure(file, kind, text)]));
    }
    this.schedule();
  }
}

/** `parse` behind a function that runs it at most once and then holds nothing (a second call answers a failure). */
function once(parse: () => RenderOutput[]): TakeOutputs {
  let pending: (() => RenderOutput[]) | undefined = parse;
  return () => {
    const f = pending;
    pending = undefined;
    return f ? f() : [failure('', 'internal', 'the outputs of this job were taken already')];
  };
}

function failure(file: string, kind: FailureKind, message: string): RenderOutput {
  return { ok: false, kind, file, line: 0, message };
}
