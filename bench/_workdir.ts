/** A bench's scratch directory, with a git of its own: every bench's git runs see the same settings. */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface BenchWorkdir {
  /** A fresh temp dir (`baton-bench-NAME-…`); the bench removes it when done. */
  dir: string;
  /** The environment for git: HOME in `dir` with a bench identity and `main` as the default branch, no system config. */
  env: NodeJS.ProcessEnv;
}

/** `extraGitConfig` is appended to the .gitconfig (e.g. a trace2 section). */
export function benchWorkdir(name: string, extraGitConfig = ''): BenchWorkdir {
  const dir = mkdtempSync(join(tmpdir(), `baton-bench-${name}-`));
  const home = join(dir, 'home');
  mkdirSync(home);
  writeFileSync(join(home, '.gitconfig'), `[user]\n\tname = Bench\n\temail = bench@example.com\n[init]\n\tdefaultBranch = main\n${extraGitConfig}`);
  return { dir, env: { PATH: process.env.PATH, HOME: home, GIT_CONFIG_NOSYSTEM: '1' } };
}
