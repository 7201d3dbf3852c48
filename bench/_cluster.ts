/** The simulated cluster in a process of its own, for benches that measure a client against it. */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Starts the simulator (controllers off unless asked for) writing its kubeconfig; ending the child's stdin stops it.
 * `cpuProfDir`: the simulator writes V8 CPU profiles into its subfolder `cluster/` when it stops (node
 * --cpu-prof): one per thread, the main thread's is the largest (a fixed --cpu-prof-name made tsx's
 * loader thread overwrite it).
 */
export async function clusterProcess(kubeconfigOut: string, options: { controllers?: boolean; cpuProfDir?: string } = {}): Promise<ChildProcess> {
  // BATON_BENCH_CLUSTER_ENTRY: another checkout's src/cluster/index.ts (a file: URL), to measure its
  // simulator against this one's under the same conditions (docs/internals/benchmarks.md).
  const other = process.env.BATON_BENCH_CLUSTER_ENTRY;
  const entry = other !== undefined && other !== '' ? other : new URL('../src/cluster/index.ts', import.meta.url).href;
  const code = [
    `const { startCluster } = await import(${JSON.stringify(entry)});`,
    // The controllers call the server in-process (docs/cluster-workloads.md); an older simulator ignores the option.
    `const c = await startCluster({ controllers: ${options.controllers === true}, controllersClient: 'in-process', token: '', kubeconfigOut: ${JSON.stringify(kubeconfigOut)} });`,
    `process.stdout.write('ready\\n');`,
    `process.stdin.on('end', () => void c.stop().then(() => process.exit(0)));`,
    `process.stdin.resume();`,
  ].join('\n');
  const child = spawn(process.execPath, [...(options.cpuProfDir !== undefined ? ['--cpu-prof', `--cpu-prof-dir=${join(options.cpuProfDir, 'cluster')}`] : []), '--import', 'tsx', '--input-type=module', '-e', code], { stdio: ['pipe', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (d: Buffer) => {
      if (d.toString().includes('ready')) resolve();
    });
    child.once('exit', (c) => reject(new Error(`simulated cluster exited with ${c}`)));
  });
  return child;
}

/** Asks the simulator to stop (its stdin ends), gives it half a second, then kills it whatever it did. */
export async function stopClusterProcess(child: ChildProcess): Promise<void> {
  child.stdin?.end();
  await new Promise((r) => setTimeout(r, 500));
  child.kill('SIGKILL');
}

/** The API server URL in a kubeconfig the simulator wrote (one cluster). */
export function kubeconfigServer(kubeconfig: string): string {
  return /server: (\S+)/.exec(readFileSync(kubeconfig, 'utf8'))?.[1] ?? '';
}

export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? 0;
}
