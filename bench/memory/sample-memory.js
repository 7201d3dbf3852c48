// Preload for the scale bench's agents (docs/scale-out.md, "Memory of one agent process"):
//   npm run bench -- scale ... --agent-node-options "--import $PWD/bench/memory/sample-memory.js"
// Every 200 ms: RSS, heap used/total, external, array buffers, old space used, and event-loop stalls
// over 1 s; a line at every new RSS peak and every 2 s into <dir>/mem-<pid>.jsonl; the agent's log lines
// with the same clock into <dir>/log-<pid>.txt. <dir> is /tmp/baton-agent-memory (the bench passes
// agents no environment of its own). A file <dir>/snapshot-at-mib holding a number makes the agent write
// one heap snapshot when its old space holds more than that many MiB (it pauses the agent and raises its
// RSS for good: a run with it says nothing about RSS). Only `baton agent` processes are sampled.
import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { getHeapSpaceStatistics, writeHeapSnapshot } from 'node:v8';

if (process.argv.includes('agent')) {
  const dir = '/tmp/baton-agent-memory';
  mkdirSync(dir, { recursive: true });
  const samples = `${dir}/mem-${process.pid}.jsonl`;
  const logs = `${dir}/log-${process.pid}.txt`;
  const t0 = Date.now();
  const seconds = () => Math.round((Date.now() - t0) / 100) / 10;
  const mib = (bytes) => Math.round((bytes / 1048576) * 10) / 10;
  const write = process.stderr.write.bind(process.stderr);
  process.stderr.write = (chunk, ...rest) => {
    try { appendFileSync(logs, `${seconds()} ${String(chunk).slice(0, 400).trimEnd()}\n`); } catch { /* sampling never breaks the agent */ }
    return write(chunk, ...rest);
  };
  process.on('SIGTERM', () => appendFileSync(logs, `${seconds()} === SIGTERM\n`));
  const trigger = `${dir}/snapshot-at-mib`;
  let snapshotAt = existsSync(trigger) ? Number(readFileSync(trigger, 'utf8')) : 0;
  let peak = 0;
  let lastLine = 0;
  let previous = Date.now();
  setInterval(() => {
    const now = Date.now();
    const stall = now - previous - 200;
    previous = now;
    const m = process.memoryUsage();
    const sample = { t: seconds(), rss: mib(m.rss), heapUsed: mib(m.heapUsed), heapTotal: mib(m.heapTotal), external: mib(m.external), arrayBuffers: mib(m.arrayBuffers) };
    if (stall > 1000) sample.stallMs = stall;
    const isPeak = m.rss > peak;
    if (!isPeak && now - lastLine <= 2000 && stall <= 1000) return;
    const spaces = getHeapSpaceStatistics();
    sample.oldUsed = mib(spaces.find((s) => s.space_name === 'old_space')?.space_used_size ?? 0);
    // Per heap space: [committed, used] MiB (where V8's reservation above its live data sits).
    sample.spaces = Object.fromEntries(spaces.filter((s) => s.space_size > 0).map((s) => [s.space_name.replace(/_space$/, ''), [mib(s.space_size), mib(s.space_used_size)]]));
    // The RSS split the kernel keeps: anonymous memory (heap, malloc, stacks) vs mapped files (the node binary's pages).
    try {
      const status = readFileSync('/proc/self/status', 'utf8');
      for (const key of ['RssAnon', 'RssFile']) {
        const kib = Number(new RegExp(`^${key}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? 'NaN');
        if (Number.isFinite(kib)) sample[key] = Math.round(kib / 102.4) / 10;
      }
    } catch { /* not Linux */ }
    if (isPeak) { peak = m.rss; sample.peak = true; }
    lastLine = now;
    appendFileSync(samples, `${JSON.stringify(sample)}\n`);
    if (snapshotAt > 0 && sample.oldUsed > snapshotAt) {
      snapshotAt = 0;
      appendFileSync(logs, `${seconds()} === heap snapshot at old space ${sample.oldUsed} MiB\n`);
      writeHeapSnapshot(`${dir}/agent-${process.pid}.heapsnapshot`);
    }
  }, 200).unref();
}
