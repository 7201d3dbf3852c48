/**
 * Is the process that left something behind (a lease holder identity, a lock on a bare clone) still
 * running? Answerable only for a process of this machine, boot and pid namespace: there a pid that
 * does not exist, or that now belongs to a process started at another time, is dead. Anything else
 * is unknown, and callers treat unknown as alive.
 */
import { readFileSync, readlinkSync } from 'node:fs';
import { hostname } from 'node:os';

/** Who a process is, beyond its pid: enough to tell it from a later process given the same pid. */
export interface ProcessIdentity {
  host: string;
  /** Boot id of the kernel ('' when unknown): a process of an earlier boot is dead. */
  boot: string;
  /** Inode of the pid namespace ('0' when unknown): pids mean the same process only within one. */
  pidNamespace: string;
  pid: number;
  /** Start time in clock ticks since boot (/proc/<pid>/stat field 22), when known. */
  startTicks?: number;
}

export type Liveness = 'alive' | 'dead' | 'unknown';

/** The pid namespace's inode ('0' when unknown). */
export function pidNamespace(): string {
  try {
    return /\[(\d+)\]/.exec(readlinkSync('/proc/self/ns/pid'))?.[1] ?? '0';
  } catch {
    return '0';
  }
}

function bootId(): string {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    return '';
  }
}

/** Field 22 of /proc/<pid>/stat (after the command name, which may hold spaces and parentheses). */
export function startTicksOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const value = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
    return Number.isFinite(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

export function currentProcess(): ProcessIdentity {
  const ticks = startTicksOf(process.pid);
  return { host: hostname(), boot: bootId(), pidNamespace: pidNamespace(), pid: process.pid, ...(ticks !== undefined ? { startTicks: ticks } : {}) };
}

/** Whether `other` still runs, as far as this process can tell. */
export function livenessOf(other: ProcessIdentity, self: ProcessIdentity = currentProcess()): Liveness {
  if (other.host !== self.host) return 'unknown';
  if (other.boot !== '' && self.boot !== '' && other.boot !== self.boot) return 'dead';
  if (other.pidNamespace === '0' || other.pidNamespace !== self.pidNamespace) return 'unknown';
  if (other.pid === self.pid) return other.startTicks === self.startTicks ? 'alive' : 'dead';
  try {
    process.kill(other.pid, 0);
  } catch (err) {
    // EPERM: it exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'ESRCH' ? 'dead' : 'alive';
  }
  const ticks = startTicksOf(other.pid);
  return other.startTicks !== undefined && ticks !== undefined && ticks !== other.startTicks ? 'dead' : 'alive';
}
