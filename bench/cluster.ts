/**
 * `npm run bench -- cluster [--seconds S] [--concurrency C] [--watchers W]`: the simulated API server
 * under load, run in a child process so its CPU and memory are its own. Figures at 1,000 and 10,000
 * stored ConfigMaps: requests per second for get, list (one namespace of 100 and all objects),
 * server-side apply, watch fan-out events per second to W watchers, server CPU per apply, and heap
 * per 10,000 objects.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { numberArg } from './_args.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const NAMESPACES = 10;
const agent = new Agent({ keepAlive: true, maxSockets: 256 });

interface Server { child: ChildProcess; url: string; command(line: string): Promise<Record<string, number>> }

async function startServer(): Promise<Server> {
  const entry = `
    import { startCluster } from ${JSON.stringify(join(root, 'src/cluster/index.ts'))};
    import { createInterface } from 'node:readline';
    const c = await startCluster({ controllers: false, watchWindow: 100000 });
    console.log('URL ' + c.url);
    for await (const line of createInterface({ input: process.stdin })) {
      if (line === 'mem') { globalThis.gc?.(); globalThis.gc?.(); const m = process.memoryUsage(); console.log('MEM ' + JSON.stringify({ heapUsed: m.heapUsed, rss: m.rss })); }
      if (line === 'stop') { await c.stop(); process.exit(0); }
    }`;
  const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', '--input-type=module', '-e', entry], { cwd: root, stdio: ['pipe', 'pipe', 'inherit'] });
  const waiters: ((line: string) => void)[] = [];
  let buf = '';
  child.stdout?.on('data', (d: Buffer) => {
    buf += d.toString();
    let nl: number;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      waiters.shift()?.(line);
    }
  });
  const next = (): Promise<string> => new Promise((r) => waiters.push(r));
  const url = (await next()).replace(/^URL /, '');
  return {
    child, url,
    command: async (line) => {
      const answer = next();
      child.stdin?.write(`${line}\n`);
      return JSON.parse((await answer).replace(/^MEM /, '')) as Record<string, number>;
    },
  };
}

function call(url: string, method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = request(`${url}${path}`, { method, agent, headers: { 'Content-Type': contentType, ...(payload ? { 'Content-Length': Buffer.byteLength(payload) } : {}) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end(payload);
  });
}

/** Runs `op(i)` with `concurrency` in flight for `seconds` (or `maxOps`); returns operations per second. */
async function rate(seconds: number, concurrency: number, op: (i: number) => Promise<unknown>, maxOps = Infinity): Promise<{ perSecond: number; ops: number }> {
  let i = 0;
  const end = Date.now() + seconds * 1000;
  const started = process.hrtime.bigint();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (Date.now() < end && i < maxOps) await op(i++);
  }));
  const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
  return { perSecond: Math.round(i / elapsed), ops: i };
}

const cm = (name: string, i: number) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: { app: 'bench', shard: String(i % 7) } }, data: { index: String(i), payload: 'x'.repeat(200) } });

async function seed(url: string, from: number, to: number): Promise<void> {
  await rate(3600, 32, async (k) => {
    const i = from + k;
    if (i >= to) return;
    const res = await call(url, 'POST', `/api/v1/namespaces/bench-${i % NAMESPACES}/configmaps`, cm(`cm-${i}`, i));
    if (res.status !== 201) throw new Error(`seeding cm-${i}: ${res.status} ${res.text}`);
  }, to - from);
}

function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime + stime in clock ticks (100 Hz)
}

/** W watchers on one namespace; `writes` updates; events delivered per second across all watchers. */
async function watchFanOut(url: string, watchers: number, writes: number): Promise<number> {
  const ns = 'bench-0';
  const rv = (JSON.parse((await call(url, 'GET', `/api/v1/namespaces/${ns}/configmaps?limit=1`)).text) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
  let delivered = 0;
  const expected = watchers * writes;
  let resolveAll!: () => void;
  const all = new Promise<void>((r) => (resolveAll = r));
  const reqs = await Promise.all(Array.from({ length: watchers }, () => new Promise<ReturnType<typeof request>>((resolve) => {
    const req = request(`${url}/api/v1/namespaces/${ns}/configmaps?watch=1&resourceVersion=${rv}&fieldSelector=metadata.name%3Dcm-0`, (res) => {
      res.on('data', (d: Buffer) => {
        for (const b of d) if (b === 10) delivered++;
        if (delivered >= expected) resolveAll();
      });
      resolve(req);
    });
    req.on('error', () => undefined);
    req.end();
  })));
  const started = process.hrtime.bigint();
  for (let i = 0; i < writes; i++) {
    await call(url, 'PATCH', `/api/v1/namespaces/${ns}/configmaps/cm-0`, { data: { tick: String(i) } }, 'application/merge-patch+json');
  }
  await all;
  const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
  for (const r of reqs) r.destroy();
  return Math.round(expected / elapsed);
}

async function measure(s: Server, n: number, seconds: number, concurrency: number, watchers: number): Promise<Record<string, number>> {
  const get = await rate(seconds, concurrency, (i) => call(s.url, 'GET', `/api/v1/namespaces/bench-${i % NAMESPACES}/configmaps/cm-${(i * 7919) % n - ((i * 7919) % n) % NAMESPACES + (i % NAMESPACES)}`));
  const listNs = await rate(seconds, concurrency, (i) => call(s.url, 'GET', `/api/v1/namespaces/bench-${i % NAMESPACES}/configmaps?limit=100`));
  const listAll = await rate(seconds, 4, () => call(s.url, 'GET', '/api/v1/configmaps'));
  const cpuBefore = cpuMs(s.child.pid ?? 0);
  const ssa = await rate(seconds, concurrency, (i) => {
    const name = `ssa-${i % 500}`;
    return call(s.url, 'PATCH', `/api/v1/namespaces/bench-1/configmaps/${name}?fieldManager=bench&force=true`, { ...cm(name, i), data: { v: String(i) } }, 'application/apply-patch+yaml');
  });
  const ssaCpu = (cpuMs(s.child.pid ?? 0) - cpuBefore) / ssa.ops;
  const fanOut = await watchFanOut(s.url, watchers, 200);
  return { getPerSecond: get.perSecond, listNamespace100PerSecond: listNs.perSecond, [`listAll${n}PerSecond`]: listAll.perSecond, ssaPerSecond: ssa.perSecond, ssaServerCpuMs: Math.round(ssaCpu * 1000) / 1000, [`watchEventsPerSecond${watchers}Watchers`]: fanOut };
}

export async function run(args: string[]): Promise<Record<string, unknown>> {
  const seconds = numberArg(args, 'seconds', 2);
  const concurrency = numberArg(args, 'concurrency', 16);
  const watchers = numberArg(args, 'watchers', 100);
  const s = await startServer();
  try {
    for (let i = 0; i < NAMESPACES; i++) await call(s.url, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: `bench-${i}` } });
    const empty = await s.command('mem');
    await seed(s.url, 0, 1000);
    const at1k = await measure(s, 1000, seconds, concurrency, watchers);
    await seed(s.url, 1000, 10_000);
    const full = await s.command('mem');
    const at10k = await measure(s, 10_000, seconds, concurrency, watchers);
    const figures = { at1000: at1k, at10000: at10k, heapMBPer10000Objects: Math.round(((full.heapUsed ?? 0) - (empty.heapUsed ?? 0)) / 1e5) / 10, rssMB: Math.round((full.rss ?? 0) / 1e6) };
    console.error(JSON.stringify(figures, null, 2));
    return figures;
  } finally {
    s.child.stdin?.write('stop\n');
    await new Promise((r) => s.child.once('exit', r));
    agent.destroy();
  }
}
