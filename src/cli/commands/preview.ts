import type { Command } from 'commander';
import type { CliIO } from '../io.js';
import { notImplemented } from './not-implemented.js';

export function registerPreview(program: Command, io: CliIO): void {
  program.command('preview').description('What a pull request would do').action(notImplemented(io, 'preview', 7));
}
