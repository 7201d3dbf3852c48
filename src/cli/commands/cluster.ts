/**
 * `baton cluster start`: runs the simulated Kubernetes API (and its controllers) in the foreground
 * until SIGINT/SIGTERM, then stops cleanly so `--data-dir` state is flushed.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { type Command, InvalidArgumentError, Option } from 'commander';
import yaml from 'js-yaml';
import { BatonError, errorMessage } from '../../errors.js';
import { type ClusterOptions, type UserSpec, startClusters } from '../../cluster/index.js';
import { SIM_NODE_DOWN } from '../../cluster/annotations.js';
import { createKubeClient } from '../../kube/http-client.js';
import { createFaultInjector, parseFaultRules, parseFaultSpec } from '../../cluster/faults/index.js';
import type { CliIO } from '../io.js';

interface StartFlags {
  port: number;
  host: string;
  dataDir?: string;
  kubeconfigOut?: string;
  token?: string;
  tls?: boolean;
  podStartDelay?: number;
  readyDelay?: number;
  nodes?: number;
  controllers: boolean;
  faults?: string;
  fault: string[];
  rbac?: boolean;
  user: UserSpec[];
  clusters: number;
}

/** `alice` or `alice:devs,ops`. */
function parseUser(value: string, all: UserSpec[]): UserSpec[] {
  const [name = '', groups] = value.split(':', 2);
  if (!/^[a-z0-9]([-a-z0-9.@]*[a-z0-9])?$/i.test(name)) throw new InvalidArgumentError(`expected NAME or NAME:GROUP,GROUP (letters, digits, '-', '.', '@'), got "${value}"`);
  return [...all, { name, ...(groups ? { groups: groups.split(',').filter((g) => g !== '') } : {}) }];
}

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError(`expected a positive integer, got "${value}"`);
  return n;
}

function nonNegativeInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError(`expected a non-negative integer, got "${value}"`);
  return n;
}

export class FaultFileError extends BatonError {
  constructor(file: string, message: string) {
    super('CLUSTER_FAULTS_FILE', `${file}: ${message}`, { file });
  }
}

/** Reads a JSON or YAML list of fault rules (or `{rules: [...]}`) and validates it. */
export function loadFaultRules(file: string): ReturnType<typeof parseFaultRules> {
  let data: unknown;
  try {
    data = yaml.load(readFileSync(file, 'utf8'), { schema: yaml.CORE_SCHEMA, filename: file });
  } catch (err) {
    throw new FaultFileError(file, errorMessage(err));
  }
  const rules = typeof data === 'object' && data !== null && !Array.isArray(data) && 'rules' in data ? (data).rules : data;
  return parseFaultRules(rules ?? [], file);
}

/** Waits for SIGINT or SIGTERM (tests pass their own trigger). */
function untilSignal(): Promise<string> {
  return new Promise((done) => {
    const on = (sig: string): void => {
      process.off('SIGINT', on);
      process.off('SIGTERM', on);
      done(sig);
    };
    process.on('SIGINT', on);
    process.on('SIGTERM', on);
  });
}

export function registerCluster(program: Command, io: CliIO, waitForStop: () => Promise<unknown> = untilSignal): void {
  const cluster = program.command('cluster').description('Run the simulated Kubernetes cluster');
  cluster
    .command('start')
    .description('Serve a simulated Kubernetes API on loopback that kubectl and client-node accept; runs until interrupted')
    .option('--port <n>', 'port to listen on (0: a free port)', nonNegativeInt, 0)
    .option('--host <addr>', 'address to bind', '127.0.0.1')
    .option('--data-dir <dir>', 'persist objects here across restarts (default: in memory)')
    .option('--kubeconfig-out <file>', 'where to write the kubeconfig (default: <data-dir or a temp dir>/kubeconfig)')
    .option('--token <token>', 'bearer token clients must send (needs --tls; default with --tls: a random one)')
    .option('--tls', 'serve HTTPS with a self-signed certificate (needs openssl)')
    .option('--pod-start-delay <ms>', 'simulated time from Pending to Running', nonNegativeInt)
    .option('--ready-delay <ms>', 'simulated time from Running to Ready', nonNegativeInt)
    .option('--nodes <n>', 'simulated nodes', nonNegativeInt)
    .addOption(new Option('--no-controllers', 'serve the API only; nothing simulates workloads'))
    .option('--faults <file>', 'JSON or YAML list of fault rules to inject (also settable at run time via /baton-sim/faults)')
    .option('--fault <spec>', 'one fault rule in compact form, e.g. verb=list|watch,resource=pods,error=503 (repeatable)', (v: string, all: string[]) => [...all, v], [])
    .option('--rbac', 'authorize requests with RBAC (implies --tls); the kubeconfig gets a context per --user')
    .option('--user <name[:groups]>', 'a user with a token and a kubeconfig context, e.g. alice or bob:devs,ops (repeatable)', parseUser, [])
    .option('--clusters <n>', 'start N independent clusters, one kubeconfig with a context each', positiveInt, 1)
    .action(async (flags: StartFlags) => {
      if (flags.token !== undefined && flags.token !== '' && !flags.tls) {
        // client-go sends credentials only over TLS (kubernetes/kubectl#744): a token on http would lock kubectl out.
        io.stderr('error: --token needs --tls: kubectl never sends bearer tokens over plain http\n');
        io.exitCode = 2;
        return;
      }
      const rules = [...(flags.faults ? loadFaultRules(resolve(io.cwd, flags.faults)) : []), ...flags.fault.map((s) => parseFaultSpec(s))];
      const faults = createFaultInjector(rules);
      const options: ClusterOptions = { port: flags.port, host: flags.host, controllers: flags.controllers, interceptor: faults, faultAdmin: faults };
      if (flags.dataDir !== undefined) options.dataDir = resolve(io.cwd, flags.dataDir);
      if (flags.kubeconfigOut !== undefined) options.kubeconfigOut = resolve(io.cwd, flags.kubeconfigOut);
      if (flags.token !== undefined) options.token = flags.token;
      if (flags.tls) options.tls = true;
      if (flags.rbac) options.rbac = true;
      if (flags.user.length > 0) options.users = flags.user;
      if (flags.nodes !== undefined) options.nodes = flags.nodes;
      const timing: NonNullable<ClusterOptions['timing']> = {};
      if (flags.podStartDelay !== undefined) timing.podStartDelayMs = flags.podStartDelay;
      if (flags.readyDelay !== undefined) timing.readyDelayMs = flags.readyDelay;
      options.timing = timing;
      const set = await startClusters(flags.clusters, options);
      for (const c of set.clusters) io.stdout(`Simulated Kubernetes API serving at ${c.url}${flags.clusters > 1 ? ` (context ${c.name})` : ''}\n`);
      for (const u of set.clusters.flatMap((c) => c.users)) io.stdout(`user ${u.name}: context ${u.context}\n`);
      io.stdout(`export KUBECONFIG=${set.kubeconfigPath}\n`);
      await waitForStop();
      io.stderr(`stopping the simulated cluster${flags.clusters > 1 ? 's' : ''}...\n`);
      await set.stop();
    });

  cluster
    .command('node')
    .description('Fail or recover a simulated node, as a test or demo would (sim.baton.dev/node-down)')
    .argument('<action>', 'fail | recover')
    .argument('<node>', 'node name, e.g. sim-node-1')
    .option('--kubeconfig <file>', 'kubeconfig of the simulated cluster (default: $KUBECONFIG)')
    .option('--context <name>', 'context to use')
    .action(async (action: string, node: string, flags: { kubeconfig?: string; context?: string }) => {
      if (action !== 'fail' && action !== 'recover') {
        io.stderr(`error: action must be "fail" or "recover", got "${action}"\n`);
        io.exitCode = 2;
        return;
      }
      const client = await createKubeClient({ ...(flags.kubeconfig ? { kubeconfigPath: resolve(io.cwd, flags.kubeconfig) } : {}), ...(flags.context ? { context: flags.context } : {}) });
      try {
        await client.patch({ apiVersion: 'v1', kind: 'Node', name: node }, { metadata: { annotations: { [SIM_NODE_DOWN]: action === 'fail' ? 'true' : null } } }, 'merge');
        io.stdout(`node/${node} ${action === 'fail' ? 'failed: it goes NotReady and its pods not Ready' : 'recovered'}\n`);
      } finally {
        client.close();
      }
    });
}
