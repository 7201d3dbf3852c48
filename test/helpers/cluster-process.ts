/**
 * The simulated cluster in a process of its own (controllers off, no token), for tests that run
 * several agents against it: an API server sharing the test's event loop answers late whenever the
 * test runs git or parses history, and agents on short leases then lose them.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';

export interface ClusterProcess {
  url: string;
  stop(): Promise<void>;
}

export async function startClusterProcess(): Promise<ClusterProcess> {
  const entry = join(import.meta.dirname, '..', '..', 'src', 'cluster', 'index.ts');
  const code = [
    `const { startCluster } = await import(${JSON.stringify(entry)});`,
    `const c = await startCluster({ controllers: false, token: '' });`,
    `process.stdout.write('url ' + c.url + '\\n');`,
    `process.stdin.on('end', () => void c.stop().then(() => process.exit(0)));`,
    `process.stdin.resume();`,
  ].join('\n');
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { stdio: ['pipe', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /url (\S+)\n/.exec(out);
      if (m?.[1]) resolve(m[1]);
    });
    child.once('exit', (c) => reject(new Error(`simulated cluster process exited with ${c}`)));
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    url,
    stop: async () => {
      child.stdin.end();
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
    },
  };
}
