/**
 * `baton agent` in a child process, for tests that kill, pause and resume it. It runs the sources
 * through tsx, or the built CLI (bin/baton.js, much faster to start) when BATON_TEST_BUILT_CLI=1
 * (the reliability suite builds first). Its JSON log lines are kept for waiting on.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

export interface AgentProcess {
  child: ChildProcess;
  pid: number;
  /** The `msg` of every log line so far. */
  logs: string[];
  /** The same lines with the time the agent logged them (ms since the epoch; the line's `time`, else when it arrived). */
  timed: { at: number; msg: string }[];
  /** Resolves with the exit code (or the signal's name). */
  exited: Promise<number | string>;
  /** Resolves with the first log line (so far or to come) matching `pattern`. */
  waitForLog(pattern: RegExp, timeoutMs: number): Promise<string>;
  signal(name: NodeJS.Signals): void;
}

const ROOT = join(import.meta.dirname, '..', '..');

export function startAgentProcess(args: string[], env: NodeJS.ProcessEnv): AgentProcess {
  const built = process.env.BATON_TEST_BUILT_CLI === '1';
  const entry = built ? [join(ROOT, 'bin', 'baton.js')] : ['--import', 'tsx', join(ROOT, 'src', 'cli', 'run.ts')];
  const child = spawn(process.execPath, [...entry, 'agent', ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const logs: string[] = [];
  const timed: { at: number; msg: string }[] = [];
  const waiters: Array<{ pattern: RegExp; resolve: (line: string) => void }> = [];
  let rest = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    rest += chunk.toString();
    const lines = rest.split('\n');
    rest = lines.pop() ?? '';
    for (const line of lines) {
      let msg = line;
      let at = Date.now();
      try {
        const parsed = JSON.parse(line) as { msg?: unknown; time?: unknown };
        if (typeof parsed.msg === 'string') msg = parsed.msg;
        if (typeof parsed.time === 'string' && Number.isFinite(Date.parse(parsed.time))) at = Date.parse(parsed.time);
      } catch {
        // not a log line (a stack trace): kept as is
      }
      logs.push(msg);
      timed.push({ at, msg });
      for (const w of [...waiters]) if (w.pattern.test(msg)) { waiters.splice(waiters.indexOf(w), 1); w.resolve(msg); }
    }
  });
  child.stdout?.resume();
  const exited = new Promise<number | string>((resolve) => child.once('exit', (code, sig) => resolve(code ?? sig ?? 'unknown')));
  return {
    child,
    pid: child.pid ?? -1,
    logs,
    timed,
    exited,
    waitForLog(pattern, timeoutMs) {
      const seen = logs.find((l) => pattern.test(l));
      if (seen !== undefined) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no log line matching ${String(pattern)} within ${timeoutMs} ms; log:\n${logs.join('\n')}`)), timeoutMs);
        waiters.push({ pattern, resolve: (line) => { clearTimeout(timer); resolve(line); } });
      });
    },
    signal(name) {
      if (child.exitCode === null && child.signalCode === null) child.kill(name);
    },
  };
}
