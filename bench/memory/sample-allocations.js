// Preload for the scale bench's agents: where the agent allocates, garbage included.
//   npm run bench -- scale ... --agent-node-options "--import $PWD/bench/memory/sample-allocations.js"
// V8's sampling heap profiler (one sample per 32 KiB allocated), keeping the samples of objects the
// garbage collector already freed (what `--heap-prof` drops), summarised every 60 s and at SIGTERM into
// /tmp/baton-agent-memory/alloc-<pid>-<window>.txt: MiB allocated per function, self and inclusive.
// Stacks end at the last `await` (async callers are not in them).
import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';

if (process.argv.includes('agent')) {
  const dir = '/tmp/baton-agent-memory';
  mkdirSync(dir, { recursive: true });
  const session = new Session();
  session.connect();
  const t0 = Date.now();
  let windowNo = 0;
  const start = () => session.post('HeapProfiler.startSampling', { samplingInterval: 32768, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
  const summarise = () => session.post('HeapProfiler.stopSampling', (err, result) => {
    if (err) return;
    const self = new Map();
    const inclusive = new Map();
    let total = 0;
    const walk = (node, stack) => {
      const f = node.callFrame;
      const key = `${f.functionName || '(anonymous)'} ${f.url.replace(/^.*\/(src|dist|node_modules)\//, '$1/')}:${f.lineNumber + 1}`;
      self.set(key, (self.get(key) ?? 0) + node.selfSize);
      total += node.selfSize;
      const outer = stack.includes(key);
      let sum = node.selfSize;
      for (const child of node.children) sum += walk(child, outer ? stack : [...stack, key]);
      if (!outer) inclusive.set(key, (inclusive.get(key) ?? 0) + sum);
      return sum;
    };
    walk(result.profile.head, []);
    const top = (m) => [...m].sort((a, b) => b[1] - a[1]).slice(0, 60).map(([k, v]) => `${(v / 1048576).toFixed(1).padStart(7)} ${k}`).join('\n');
    writeFileSync(`${dir}/alloc-${process.pid}-${String(windowNo++).padStart(2, '0')}.txt`,
      `t=${Math.round((Date.now() - t0) / 1000)} s: ${(total / 1048576).toFixed(1)} MiB allocated in this window\n--- self\n${top(self)}\n--- inclusive\n${top(inclusive)}\n`);
    start();
  });
  start();
  setInterval(summarise, 60_000).unref();
  process.on('SIGTERM', summarise);
}
