/**
 * Runs one git process directly (child_process.spawn), for the idle poll's `git fetch`: simple-git's
 * task queue and plugins cost ~0.5 ms a process (10.6 vs 10.1 ms for a fetch with nothing new at
 * 10,000 instances, the same arguments and environment), 5% of an idle poll that must stay within
 * 1.2x a `git fetch` (issue #20). Same rules as the mirror's simple-git: the environment it is given
 * and nothing else, and a process silent for `silenceMs` is killed.
 */
import { spawn } from 'node:child_process';

/** A git process that failed: `message` is what it printed (stderr, else stdout), as simple-git's GitError has it. */
export class GitProcessFailure extends Error {
  constructor(message: string, readonly exitCode: number | null) {
    super(message);
    this.name = 'GitProcessFailure';
  }
}

export function runGit(args: readonly string[], options: { cwd: string; env: Record<string, string>; silenceMs: number }): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'], windowsHide: true });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let killed = false;
    let timer: NodeJS.Timeout | undefined;
    const arm = (): void => {
      if (timer) clearTimeout(timer);
      timer = setTimeout(() => { killed = true; child.kill('SIGKILL'); }, options.silenceMs);
    };
    arm();
    child.stdout.on('data', (d: Buffer) => { out.push(d); arm(); });
    child.stderr.on('data', (d: Buffer) => { err.push(d); arm(); });
    child.on('error', (e) => {
      if (timer) clearTimeout(timer);
      reject(new GitProcessFailure(`git could not be started: ${e.message}`, null));
    });
    child.on('close', (code) => {
      if (timer) clearTimeout(timer);
      const stdout = Buffer.concat(out).toString('utf8');
      if (code === 0) return resolve(stdout);
      const stderr = Buffer.concat(err).toString('utf8');
      reject(new GitProcessFailure(killed ? `git ${args[0] ?? ''} printed nothing for ${options.silenceMs} ms and was stopped` : stderr || stdout || `git ${args[0] ?? ''} exited with code ${String(code)}`, code));
    });
  });
}
