/** `baton plan status <namespace/instance | instance-file>`: reads the engine's checkpoint from the cluster. */
import { basename, dirname } from 'node:path';
import type { Command } from 'commander';
import { errorMessage } from '../../errors.js';
import { createKubeClient } from '../../kube/http-client.js';
import { ConfigMapCheckpointStore } from '../../plans/checkpoint-configmap.js';
import { checkpointText } from '../../plans/status-text.js';
import type { CliIO } from '../io.js';
import { withClusterFlags, type ClusterFlags } from './apply.js';

export function registerPlanStatus(plan: Command, io: CliIO): void {
  withClusterFlags(plan.command('status'))
    .description('Show the plan status of an instance from its checkpoint in the cluster')
    .argument('<instance>', 'namespace/instance, or an instances/<namespace>/<instance>.yaml file')
    .action(async (target: string, flags: ClusterFlags) => {
      const key = instanceKeyOf(target);
      if (key === undefined) {
        io.stderr(`error: ${target}: expected namespace/instance or instances/<namespace>/<instance>.yaml\n`);
        io.exitCode = 2;
        return;
      }
      const client = await createKubeClient({ ...(flags.kubeconfig ? { kubeconfigPath: flags.kubeconfig } : {}), ...(flags.context ? { context: flags.context } : {}) });
      try {
        const stored = await new ConfigMapCheckpointStore(client).load(key);
        if (stored === undefined) {
          io.stderr(`instance ${key.namespace}/${key.name}: no checkpoint in the cluster (never applied, or deleted)\n`);
          io.exitCode = 1;
          return;
        }
        io.stdout(flags.output === 'json' ? `${JSON.stringify(stored.checkpoint, null, 2)}\n` : checkpointText(stored.checkpoint));
      } catch (err) {
        io.stderr(`error: ${errorMessage(err)}\n`);
        io.exitCode = 1;
      } finally {
        client.close();
      }
    });
}

function instanceKeyOf(target: string): { namespace: string; name: string } | undefined {
  if (/\.ya?ml$/.test(target)) return { namespace: basename(dirname(target)), name: basename(target).replace(/\.ya?ml$/, '') };
  const m = /^([a-z0-9-]+)\/([a-z0-9-]+)$/.exec(target);
  return m?.[1] && m[2] ? { namespace: m[1], name: m[2] } : undefined;
}
