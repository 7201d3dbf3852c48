/**
 * The registry of subcommands. Each module adds its command(s) to the program; keep one file per
 * command so work on one never touches another.
 *
 * Modules are loaded on demand: a command's module imports the library it drives (the agent, the
 * renderer, the importers, the simulated cluster...), and a long-running `baton agent` would otherwise
 * keep every other command's code and sources in its heap for its lifetime (~4.5 MiB RSS,
 * docs/scale-out.md, "Memory of one agent process"). `commandsToLoad` picks what a command line needs:
 * only the named command's module, or all of them when no command is named (`baton --help`, `--version`,
 * `baton help x`, a misspelt name that commander suggests a correction for).
 */
import type { Command } from 'commander';
import type { CliIO } from '../io.js';

export type RegisterCommand = (program: Command, io: CliIO) => void;

/** A top-level command: its name (what the module registers) and how to load its module. */
export interface CommandEntry {
  readonly name: string;
  readonly load: () => Promise<RegisterCommand>;
}

/** In the order `baton --help` lists them. */
export const commands: readonly CommandEntry[] = [
  { name: 'init', load: async () => (await import('./init.js')).registerInit },
  { name: 'new', load: async () => (await import('./new.js')).registerNew },
  { name: 'validate', load: async () => (await import('./validate.js')).registerValidate },
  { name: 'render', load: async () => (await import('./render.js')).registerRender },
  { name: 'preview', load: async () => (await import('./preview.js')).registerPreview },
  { name: 'apply', load: async () => (await import('./apply.js')).registerApply },
  { name: 'delete', load: async () => (await import('./delete.js')).registerDelete },
  { name: 'plan', load: async () => (await import('./plan.js')).registerPlan },
  { name: 'pod', load: async () => (await import('./pod.js')).registerPod },
  { name: 'history', load: async () => (await import('./history.js')).registerHistory },
  { name: 'agent', load: async () => (await import('./agent.js')).registerAgent },
  { name: 'cluster', load: async () => (await import('./cluster.js')).registerCluster },
  { name: 'test', load: async () => (await import('./test.js')).registerTest },
  { name: 'rbac', load: async () => (await import('./rbac.js')).registerRbac },
  { name: 'demo', load: async () => (await import('./demo.js')).registerDemo },
  { name: 'import', load: async () => (await import('./import.js')).registerImport },
];

/**
 * The entries a command line needs: the one its first word names (`argv` as process.argv: node, the
 * script, then the arguments), else all. The program has no option of its own that takes a value, so a
 * command named anywhere but first is not a command line commander would run either.
 */
export function commandsToLoad(argv: readonly string[] | undefined, entries: readonly CommandEntry[] = commands): readonly CommandEntry[] {
  const first = argv?.[2];
  const named = entries.find((e) => e.name === first);
  return named !== undefined ? [named] : entries;
}
