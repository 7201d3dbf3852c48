/**
 * Test helper: a simulated cluster on a free loopback port with its kubeconfig in a temp dir, and a
 * kubectl runner with a fresh discovery cache per cluster. Controllers are off unless asked for, so
 * tests that don't need simulated workloads stay fast and deterministic.
 *
 *   const c = await startTestCluster();
 *   const r = await c.kubectl(['get', 'ns']);   // { code, stdout, stderr }
 *   await c.stop();
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { type Cluster, type ClusterOptions, startCluster } from '../../src/cluster/index.js';

export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface KubectlRunOptions {
  /** A kubectl binary: 'kubectl' (the dispatcher on the PATH) or a path from `kubectlBinaries()`. */
  bin?: string;
  /** Text for stdin (`apply -f -`). */
  input?: string;
  timeoutMs?: number;
}

export interface TestCluster extends Cluster {
  /** A temp dir removed on stop (the kubeconfig and kubectl cache live here). */
  dir: string;
  kubectl(args: string[], options?: KubectlRunOptions): Promise<KubectlResult>;
  /** A long-running kubectl (`get -w`, `logs -f`) whose output can be waited on while it runs. */
  kubectlStream(args: string[], options?: KubectlRunOptions): KubectlStream;
}

export interface KubectlStream {
  /** Resolves once the output satisfies `done` (checked on every chunk); rejects after `timeoutMs` (default 60 s: it only catches a hang). */
  until(done: (stdout: string, stderr: string) => boolean, timeoutMs?: number): Promise<string>;
  /** Stops the process (if still running) and resolves with everything it printed. */
  stop(): Promise<KubectlResult>;
  /** Resolves when the process ends by itself (a command that finishes), with everything it printed. */
  exit(): Promise<KubectlResult>;
}

export function streamKubectl(kubeconfig: string, cacheDir: string, args: string[], options: KubectlRunOptions = {}): KubectlStream {
  const child = spawn(options.bin ?? 'kubectl', ['--kubeconfig', kubeconfig, '--cache-dir', cacheDir, ...args], {
    env: { ...process.env, KUBECONFIG: kubeconfig, HOME: dirname(cacheDir) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const checks = new Set<() => void>();
  child.stdout.on('data', (d: Buffer) => {
    stdout += d.toString();
    for (const check of [...checks]) check();
  });
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
    for (const check of [...checks]) check();
  });
  const exited = new Promise<number>((resolve) => child.on('close', (code) => resolve(code ?? 1)));
  return {
    until: (done, timeoutMs = 60_000) => new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => {
        checks.delete(check);
        reject(new Error(`kubectl ${args.join(' ')}: condition not met after ${timeoutMs} ms; stdout:\n${stdout}\nstderr:\n${stderr}`));
      }, timeoutMs);
      const check = (): void => {
        if (!done(stdout, stderr)) return;
        clearTimeout(timer);
        checks.delete(check);
        resolve(stdout);
      };
      checks.add(check);
      check();
    }),
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      const code = await exited;
      return { code, stdout, stderr };
    },
    exit: async () => ({ code: await exited, stdout, stderr }),
  };
}

/** The dispatcher on the PATH and the oldest/newest versioned binaries beside the real one. */
export function kubectlBinaries(): { dispatcher: string; oldest: string; newest: string; dir: string } | undefined {
  for (const p of (process.env.PATH ?? '').split(':')) {
    const candidate = join(p, 'kubectl');
    if (p === '' || !existsSync(candidate)) continue;
    const dir = dirname(realpathSync(candidate));
    return { dispatcher: candidate, oldest: join(dir, 'kubectl.1.27'), newest: join(dir, 'kubectl.1.33'), dir };
  }
  return undefined;
}

export function runKubectl(kubeconfig: string, cacheDir: string, args: string[], options: KubectlRunOptions = {}): Promise<KubectlResult> {
  const bin = options.bin ?? 'kubectl';
  return new Promise((resolve) => {
    const child = execFile(
      bin,
      ['--kubeconfig', kubeconfig, '--cache-dir', cacheDir, ...args],
      { timeout: options.timeoutMs ?? 20_000, env: { ...process.env, KUBECONFIG: kubeconfig, HOME: dirname(cacheDir) } },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
    if (options.input !== undefined) child.stdin?.end(options.input);
    else child.stdin?.end();
  });
}

export async function startTestCluster(options: ClusterOptions = {}): Promise<TestCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'baton-test-cluster-'));
  const cluster = await startCluster({ controllers: false, kubeconfigOut: join(dir, 'kubeconfig'), ...options });
  return {
    ...cluster,
    dir,
    // Each binary gets its own cache dir: versions differ in what they cache.
    kubectl: (args, run = {}) => runKubectl(cluster.kubeconfigPath, join(dir, `cache-${(run.bin ?? 'kubectl').replace(/\W/g, '_')}`), args, run),
    kubectlStream: (args, run = {}) => streamKubectl(cluster.kubeconfigPath, join(dir, `cache-${(run.bin ?? 'kubectl').replace(/\W/g, '_')}`), args, run),
    stop: async () => {
      await cluster.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
