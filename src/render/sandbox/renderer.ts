/**
 * The host side of the template sandbox: one worker thread at a time, created lazily, fed batches of
 * render jobs coalesced from everything queued in the same turn of the event loop (so rendering 1,000
 * instances costs a handful of messages, not 1,000 round trips). A batch that times out or kills the
 * worker (memory) is retried job by job, then render by render, so the failure lands on the template
 * that caused it while the others still render. The host never runs template code.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { CompiledTemplate } from './compile.js';
import { RenderCache } from '../render-cache.js';
import { PRELUDE } from './prelude.js';
import { WORKER_SOURCE } from './worker-source.js';

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

export type FailureKind = 'runtime' | 'undefined' | 'value' | 'output' | 'yaml' | 'alias' | 'timeout' | 'memory' | 'internal';

export type RenderOutput =
  | { ok: true; docs: { index: number; value: unknown }[] }
  | { ok: false; kind: FailureKind; file: string; line: number; column?: number; message: string; outputLine?: number; outputText?: string };

export interface RendererOptions {
  /** Wall-clock limit for one batch and for one template render (ms). Default 2000. */
  timeoutMs?: number;
  /** Heap limit of the sandbox worker (MiB). Default 256. */
  memoryMb?: number;
  /** Most jobs per worker message. Default 64. */
  maxBatch?: number;
  /** Node flags for the worker (default none), e.g. `--cpu-prof` when profiling the sandbox. */
  execArgv?: string[];
  /** Rendered plans kept by their inputs (see render-cache.ts); default 512, 0 turns the cache off. */
  cacheEntries?: number;
}

interface Pending {
  job: SandboxJob;
  resolve: (out: RenderOutput[]) => void;
}

type WorkerReply = { id: number; results: RenderOutput[][] } | { id: number; failure: { kind: 'timeout' | 'internal'; message: string; where: string } };

interface Inflight {
  id: number;
  batch: Pending[];
}

interface Live {
  worker: Worker;
  known: Set<string>;
  /** Up to two batches in flight, so host work on one overlaps sandbox work on the next. */
  inflight: Map<number, Inflight>;
  oom: boolean;
}

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
  run(job: SandboxJob): Promise<RenderOutput[]> {
    if (this.closed) return Promise.resolve(job.renders.map((r) => failure(r.file, 'internal', 'the renderer is closed')));
    if (job.renders.length === 0) return Promise.resolve([]);
    return new Promise((resolve) => {
      this.queue.push({ job, resolve });
      this.schedule();
    });
  }

  /** Stops the worker. Pending and later jobs fail with an `internal` output. */
  async close(): Promise<void> {
    this.closed = true;
    const live = this.live;
    this.live = undefined;
    for (const p of [...this.queue, ...this.retry.flatMap((r) => r.batch), ...[...(live?.inflight.values() ?? [])].flatMap((f) => f.batch)]) {
      p.resolve(p.job.renders.map((r) => failure(r.file, 'internal', 'the renderer was closed')));
    }
    this.queue = [];
    this.retry = [];
    if (live) {
      live.inflight.clear();
      await live.worker.terminate();
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
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      env: {},
      execArgv: this.execArgv,
      workerData: { prelude: PRELUDE, jsYamlPath: JS_YAML_PATH, yamlSource: sandboxYamlSource() },
      resourceLimits: { maxOldGenerationSizeMb: this.memoryMb, maxYoungGenerationSizeMb: 32, stackSizeMb: 4 },
      stdout: true,
      stderr: true,
    });
    const live: Live = { worker, known: new Set(), inflight: new Map(), oom: false };
    worker.on('message', (reply: WorkerReply) => this.onReply(live, reply));
    worker.on('error', (err: Error & { code?: string }) => {
      if (err.code === 'ERR_WORKER_OUT_OF_MEMORY') live.oom = true;
    });
    worker.on('exit', () => {
      if (this.live === live) this.live = undefined;
      const lost = [...live.inflight.values()];
      live.inflight.clear();
      if (lost.length === 1) {
        this.onFailure(lost[0]!.batch, live.oom ? 'memory' : 'internal', live.oom ? 'template exceeded the sandbox memory limit' : 'the sandbox worker stopped');
      } else {
        // Which of several batches killed the worker is unknown: retry each alone, unchanged.
        for (const f of lost) this.retry.push({ batch: f.batch });
      }
      this.pump();
    });
    worker.unref();
    return live;
  }

  private send(batch: Pending[]): void {
    const live = (this.live ??= this.spawn());
    const id = this.nextId++;
    const defines: CompiledTemplate[] = [];
    for (const p of batch) {
      for (const d of p.job.defines) {
        if (!live.known.has(d.key)) {
          live.known.add(d.key);
          defines.push(d);
        }
      }
    }
    const input = JSON.stringify(batch.map((p) => ({ base: p.job.base, renders: p.job.renders, partials: p.job.partials })));
    live.inflight.set(id, { id, batch });
    live.worker.ref();
    live.worker.postMessage({ id, defines, input, timeoutMs: this.timeoutMs });
  }

  private onReply(live: Live, reply: WorkerReply): void {
    const inflight = live.inflight.get(reply.id);
    if (!inflight) return;
    live.inflight.delete(reply.id);
    if (live.inflight.size === 0) live.worker.unref();
    if ('results' in reply) {
      inflight.batch.forEach((p, i) => p.resolve(reply.results[i] ?? p.job.renders.map((r) => failure(r.file, 'internal', 'missing result'))));
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
          batch: [{ job, resolve: (out) => {
            outputs[i] = out[0] ?? failure(job.renders[0]?.file ?? '', 'internal', 'missing result');
            if (--left === 0) only.resolve(outputs);
          } }],
        });
      });
    } else if (only) {
      const file = only.job.renders[0]?.file ?? '';
      const text = kind === 'timeout' ? `template did not finish within ${this.timeoutMs} ms (endless loop?)` : message;
      only.resolve([failure(file, kind, text)]);
    }
    this.schedule();
  }
}

function failure(file: string, kind: FailureKind, message: string): RenderOutput {
  return { ok: false, kind, file, line: 0, message };
}
