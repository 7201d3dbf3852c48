/**
 * Lock files left in a bare clone by a process that died mid-operation (`refs/.../x.lock`,
 * `packed-refs.lock`), after which git refuses to touch that ref ("cannot lock ref"). Each process
 * that opens the clone records itself under `<gitdir>/baton-users/`. A lock is surely stale when no
 * other recorded process may still run (see process-liveness.ts): then every lock is cleared at once.
 * While another user may be alive (a CLI command next to the agent, or a process this one cannot
 * check), only locks older than the longest git operation (the git timeout) are cleared.
 */
import { mkdirSync, readFileSync, readdirSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { currentProcess, livenessOf, type ProcessIdentity } from '../process-liveness.js';

const USERS_DIR = 'baton-users';
/** Lock files of the repository itself, beside those under refs/. */
const TOP_LEVEL_LOCKS = ['packed-refs.lock', 'HEAD.lock', 'config.lock', 'shallow.lock'];

export class MirrorUsers {
  private readonly self = currentProcess();
  private registered: string | undefined;

  constructor(private readonly gitdir: string) {}

  /** Records this process as a user of the clone (once). */
  register(): void {
    if (this.registered !== undefined) return;
    const dir = join(this.gitdir, USERS_DIR);
    mkdirSync(dir, { recursive: true });
    this.registered = join(dir, `${this.self.pid}-${randomBytes(4).toString('hex')}.json`);
    writeFileSync(this.registered, JSON.stringify(this.self));
  }

  /** Whether a process other than this one that may still run uses the clone; forgets the dead. */
  othersMaybeAlive(): boolean {
    const dir = join(this.gitdir, USERS_DIR);
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return false;
    }
    let maybe = false;
    for (const name of names) {
      const path = join(dir, name);
      if (path === this.registered) continue;
      const other = readIdentity(path);
      if (other === undefined || livenessOf(other, this.self) === 'dead') {
        try { unlinkSync(path); } catch { /* removed meanwhile */ }
        continue;
      }
      maybe = true;
    }
    return maybe;
  }

  /**
   * Removes stale lock files: all of them when no other user may be alive, else those older than
   * `gitTimeoutMs`. Returns how many were removed.
   */
  clearStaleLocks(gitTimeoutMs: number): number {
    const cutoff = this.othersMaybeAlive() ? Date.now() - gitTimeoutMs : Infinity;
    let removed = 0;
    const drop = (path: string): void => {
      try {
        if (statSync(path).mtimeMs < cutoff) { unlinkSync(path); removed++; }
      } catch {
        // gone meanwhile, or not ours to remove: leave it
      }
    };
    const visit = (dir: string): void => {
      let names: string[];
      try {
        names = readdirSync(dir);
      } catch {
        return;
      }
      for (const name of names) {
        const path = join(dir, name);
        if (name.endsWith('.lock')) drop(path);
        else if (isDirectory(path)) visit(path);
      }
    };
    visit(join(this.gitdir, 'refs'));
    for (const name of TOP_LEVEL_LOCKS) drop(join(this.gitdir, name));
    return removed;
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function readIdentity(path: string): ProcessIdentity | undefined {
  try {
    const v = JSON.parse(readFileSync(path, 'utf8')) as Partial<ProcessIdentity>;
    if (typeof v.host !== 'string' || typeof v.pid !== 'number' || typeof v.pidNamespace !== 'string') return undefined;
    return { host: v.host, boot: typeof v.boot === 'string' ? v.boot : '', pidNamespace: v.pidNamespace, pid: v.pid, ...(typeof v.startTicks === 'number' ? { startTicks: v.startTicks } : {}) };
  } catch {
    return undefined;
  }
}
