/**
 * The CLI: a thin layer that parses flags into option objects and calls the same library functions
 * the agent calls. Each subcommand lives in its own file under commands/.
 */
import { createRequire } from 'node:module';
import { Command, CommanderError } from 'commander';
import { ExitCode, errorMessage } from '../errors.js';
import { type CliIO, processIO } from './io.js';
import { commandsToLoad } from './commands/index.js';
import { UsageError, applyHelpStyle } from './conventions.js';

/**
 * The program with the commands `argv` needs (all of them without `argv`: help, the docs' reference);
 * see commands/index.ts for why a command line loads only its own command's module.
 */
export async function buildProgram(io: CliIO, options: { argv?: readonly string[]; columns?: number } = {}): Promise<Command> {
  const columns = 'columns' in options ? options.columns : io.isTTY ? process.stdout.columns : undefined;
  const entries = commandsToLoad(options.argv);
  const registers = await Promise.all(entries.map((e) => e.load()));
  const program = new Command('baton')
    .description('GitOps plan agent for Kubernetes: framework lifecycles as data, run from Git.')
    .version(BATON_VERSION, '--version')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();
  for (const register of registers) register(program, io);
  // Subcommands inherit output, help style and exit behaviour so `baton x --bad-flag` is a usage error (2).
  applyInheritedSettings(program, io, columns);
  return program;
}

function applyInheritedSettings(cmd: Command, io: CliIO, columns: number | undefined): void {
  applyHelpStyle(cmd, io, columns);
  cmd.exitOverride().showHelpAfterError('(run with --help for usage)');
  for (const sub of cmd.commands) applyInheritedSettings(sub, io, columns);
}

/** The version of the installed package (package.json is two folders up from both src/cli and dist/cli). */
export const BATON_VERSION: string = (createRequire(import.meta.url)('../../package.json') as { version: string }).version;

/** Runs the CLI and resolves to the process exit code. */
export async function main(argv: string[], io: CliIO = processIO()): Promise<number> {
  const program = await buildProgram(io, { argv });
  try {
    await program.parseAsync(argv);
    return io.exitCode;
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version end through exitOverride with exitCode 0.
      return err.exitCode === 0 ? ExitCode.Ok : ExitCode.Usage;
    }
    io.stderr(`error: ${errorMessage(err)}\n`);
    if (err instanceof UsageError) {
      io.stderr('(run with --help for usage)\n');
      return ExitCode.Usage;
    }
    return ExitCode.Invalid;
  }
}
