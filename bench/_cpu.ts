/**
 * Where CPU time goes in a bench with several processes (`bench scale --cpu-breakdown`): a process's
 * own CPU and that of its reaped children, read from /proc/PID/stat, and every git process the agents
 * start, by subcommand, through a `git` shim first on their PATH that runs the real git under bash's
 * `time` (CPU of git and of what it starts: upload-pack, index-pack, pack-objects...). The shim costs a
 * bash start per git process (a few ms of CPU, counted in the agent's children, not in the git figures).
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Clock ticks per second of /proc/PID/stat (USER_HZ). */
const TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

export interface ProcTimes {
  /** CPU seconds of the process itself (user + system). */
  self: number;
  /** CPU seconds of its children that ended and were waited for (user + system). */
  children: number;
}

/** The CPU seconds of a running process (zeros when it is gone). */
export function procTimes(pid: number | undefined | 'self'): ProcTimes {
  try {
    const stat = readFileSync(`/proc/${pid ?? 0}/stat`, 'utf8');
    // Fields after the command name in parentheses (which may hold spaces): state is field 3.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ').map(Number);
    const at = (field: number): number => fields[field - 3] ?? 0;
    return { self: (at(14) + at(15)) / TICKS, children: (at(16) + at(17)) / TICKS };
  } catch {
    return { self: 0, children: 0 };
  }
}

/** Machine-wide busy CPU seconds so far (all cores, every process: other users of the machine too). */
export function machineBusySeconds(): number {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '';
  const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = line.split(/\s+/).slice(1).map(Number);
  return (user + nice + system + irq + softirq + steal) / TICKS;
}

export interface GitShim {
  /** Put first on the agents' PATH. */
  binDir: string;
  log: string;
}

/** Writes the `git` shim into `dir` (see the file comment). */
export function gitShim(dir: string): GitShim {
  const real = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
  const binDir = join(dir, 'bin');
  mkdirSync(binDir, { recursive: true });
  const log = join(dir, 'git-times.log');
  writeFileSync(log, '');
  const script = [
    '#!/bin/bash',
    '# The subcommand: the first argument that is not an option (nor the value of -C, -c, --git-dir).',
    'sub=; skip=',
    'for a in "$@"; do',
    '  if [ -n "$skip" ]; then skip=; continue; fi',
    '  case "$a" in -C|-c|--git-dir|--work-tree|--namespace) skip=1; continue;; -*) continue;; esac',
    '  sub=$a; break',
    'done',
    `TIMEFORMAT="\${sub:-none} %3R %3U %3S"`,
    'exec 4>&2',
    `{ time ${JSON.stringify(real)} "$@" 2>&4 4>&-; } 2>>${JSON.stringify(log)}`,
    'exit $?',
    '',
  ].join('\n');
  writeFileSync(join(binDir, 'git'), script);
  chmodSync(join(binDir, 'git'), 0o755);
  return { binDir, log };
}

export interface GitCpu {
  count: number;
  wallSeconds: number;
  cpuSeconds: number;
}

/** Per subcommand: how many git processes ran, their wall and CPU seconds (rounded to 0.1). */
export function gitCpuBySubcommand(log: string): Record<string, GitCpu> {
  const out: Record<string, GitCpu> = {};
  if (!existsSync(log)) return out;
  for (const line of readFileSync(log, 'utf8').split('\n')) {
    const m = /^(\S+) ([\d.]+) ([\d.]+) ([\d.]+)$/.exec(line);
    if (!m) continue;
    const e = (out[m[1] ?? ''] ??= { count: 0, wallSeconds: 0, cpuSeconds: 0 });
    e.count += 1;
    e.wallSeconds += Number(m[2]);
    e.cpuSeconds += Number(m[3]) + Number(m[4]);
  }
  for (const e of Object.values(out)) { e.wallSeconds = round1(e.wallSeconds); e.cpuSeconds = round1(e.cpuSeconds); }
  return out;
}

export const round1 = (x: number): number => Math.round(x * 10) / 10;
