import type { Command } from 'commander';
import type { CliIO } from '../io.js';
import { notImplemented } from './not-implemented.js';

export function registerRender(program: Command, io: CliIO): void {
  program.command('render').description('Render a plan of an instance into ordered batches').action(notImplemented(io, 'render', 2));
}
