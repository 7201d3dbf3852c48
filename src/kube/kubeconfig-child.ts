/**
 * The kubeconfig resolver as a process of its own (see kubeconfig.ts `resolveOutOfProcess`): reads the
 * options as JSON from its first argument, loads the kubeconfig with client-node and writes the
 * resolved connection settings (or the error) as one JSON line to stdout, then exits. client-node's
 * generated API (about 70 MiB of resident memory once imported) then never loads into the agent.
 */
import { resolveKubeconfig } from './kubeconfig.js';
import { BatonError, errorMessage } from '../errors.js';

try {
  const options = JSON.parse(process.argv[2] ?? '{}') as Parameters<typeof resolveKubeconfig>[0];
  process.stdout.write(`${JSON.stringify({ ok: true, value: await resolveKubeconfig(options) })}\n`);
} catch (err) {
  process.stdout.write(`${JSON.stringify({ ok: false, message: errorMessage(err), context: err instanceof BatonError ? err.context : {} })}\n`);
}
