import type { Command } from 'commander';
import type { CliIO } from '../io.js';
import { notImplemented } from './not-implemented.js';

export function registerCluster(program: Command, io: CliIO): void {
  program.command('cluster').description('Run the simulated Kubernetes cluster').action(notImplemented(io, 'cluster', 3));
}
