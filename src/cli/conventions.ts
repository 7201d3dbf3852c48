/**
 * The conventions every command follows, applied in one place (main.ts):
 * - exit codes: 0 success, 1 failure or refusal (bad input files, a failed plan, an unreachable cluster
 *   or repository), 2 usage error only (unknown command or flag, a missing argument, a malformed value);
 * - help wrapped to at most 100 columns, defaults shown once (by commander, from the option's default);
 * - one flag name per meaning: `--repo <dir>` is a repository folder on disk, `--git <url|path>` a Git
 *   repository read through git (clone, fetch, refs). Old spellings stay as hidden aliases that warn.
 */
import { Command, Option } from 'commander';
import { BatonError } from '../errors.js';
import type { CliIO } from './io.js';

/** Widest help line, whatever the terminal says. */
export const HELP_WIDTH = 100;

/**
 * A mistake in the command line itself: main() prints it and exits 2. Throw it from an action for
 * what commander cannot check (a flag combination, the form of an argument).
 */
export class UsageError extends BatonError {
  constructor(message: string) {
    super('CLI_USAGE', message);
  }
}

/** Help layout for a command and its subcommands: width 100 (less on a narrower terminal), always wrapped. */
export function applyHelpStyle(cmd: Command, io: CliIO, columns: number | undefined): void {
  const width = Math.min(HELP_WIDTH, columns !== undefined && columns >= 60 ? columns : HELP_WIDTH);
  cmd.configureHelp({ helpWidth: width, minWidthToWrap: 20 });
  cmd.configureOutput({ writeOut: io.stdout, writeErr: io.stderr, getOutHelpWidth: () => width, getErrHelpWidth: () => width });
}

/**
 * Keeps `--old` working as a hidden alias of `--new` (same value), with a warning on stderr; the
 * action sees only the new name.
 */
export function deprecatedAlias(cmd: Command, io: CliIO, old: { flags: string; attribute: string }, replacement: { flag: string; attribute: string }): Command {
  cmd.addOption(new Option(old.flags).hideHelp());
  return cmd.hook('preAction', (_self, action) => {
    const value: unknown = action.getOptionValue(old.attribute);
    if (value === undefined || action !== cmd) return;
    io.stderr(`warning: ${old.flags.split(' ')[0]} is deprecated for \`baton ${commandPath(cmd)}\`: use ${replacement.flag}\n`);
    if (action.getOptionValueSource(replacement.attribute) !== 'cli') action.setOptionValueWithSource(replacement.attribute, value, 'cli');
    action.setOptionValue(old.attribute, undefined);
  });
}

export function commandPath(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}
