import type { Command } from 'commander';
import type { CliIO } from '../io.js';
import { notImplemented } from './not-implemented.js';

export function registerApply(program: Command, io: CliIO): void {
  program.command('apply').description('Run one plan of an instance against a cluster, without Git').action(notImplemented(io, 'apply', 5));
}
