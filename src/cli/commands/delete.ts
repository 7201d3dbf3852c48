/** `baton delete <instance-file>`: the framework's cleanup plan when it has one, then removal of everything the instance owns and of its checkpoint. */
import type { Command } from 'commander';
import type { CliIO } from '../io.js';
import { runReconcile, withClusterFlags, withTargetFlag, type ClusterFlags } from './apply.js';

export function registerDelete(program: Command, io: CliIO): void {
  withTargetFlag(withClusterFlags(program.command('delete')))
    .description('Run the cleanup plan (when defined), then remove every object the instance owns and its checkpoint')
    .argument('<instance-file>', 'instances/<namespace>/<instance>.yaml')
    .option('--no-events', 'do not record Kubernetes Events for the cleanup plan')
    .action(async (file: string, flags: ClusterFlags) => {
      io.exitCode = await runReconcile(io, file, flags, { removed: true });
    });
}
