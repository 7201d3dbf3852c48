/**
 * `node --import tsx bench/profile/summary.ts DIR [--by file|function] [--top N] [--cluster]`: where the
 * CPU of the `.cpuprofile` files in DIR went (what `npm run bench -- scale --cpu-prof` keeps), summed over
 * the files. Each sample's time goes to the innermost Baton frame on its stack (`dist/` or `src/`, not
 * node_modules), so Node's HTTP, stream and zlib internals count for the Baton code that called them;
 * samples with no Baton frame (garbage collection, the event loop) are listed by their own frame.
 * Agents' profiles by default; `--cluster` the simulated cluster's (src/cluster/) instead. V8 samples
 * wall time: on a loaded machine the busy seconds are inflated, their shares are what to read.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { numberArg, stringArg } from '../_args.js';

interface CallFrame { functionName: string; url: string; lineNumber: number }
interface ProfileNode { id: number; callFrame: CallFrame; children?: number[] }
interface CpuProfile { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] }

/** Baton's own code: under dist/ or src/, not a package's. */
const ours = (url: string): boolean => /\/(dist|src)\//.test(url) && !url.includes('/node_modules/');

function label(frame: CallFrame, by: 'file' | 'function'): string {
  const file = frame.url.replace(/^.*\/(dist|src)\//, '');
  return by === 'file' ? file : `${frame.functionName || '(anonymous)'} ${file}:${frame.lineNumber + 1}`;
}

/** Busy microseconds by owner, and the total, of one profile. */
function summarize(profile: CpuProfile, by: 'file' | 'function', into: Map<string, number>): number {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const owners = new Map<number, string>();
  const ownerOf = (id: number): string => {
    const known = owners.get(id);
    if (known !== undefined) return known;
    let owner: string | undefined;
    for (let at: number | undefined = id; at !== undefined && owner === undefined; at = parent.get(at)) {
      const frame = nodes.get(at)?.callFrame;
      if (frame !== undefined && ours(frame.url)) owner = label(frame, by);
    }
    const leaf = nodes.get(id)?.callFrame;
    owner ??= `[no Baton frame] ${leaf?.functionName || '(anonymous)'} ${(leaf?.url ?? '').replace(/^.*node_modules\//, '')}`.trim();
    owners.set(id, owner);
    return owner;
  };
  let total = 0;
  profile.samples.forEach((id, i) => {
    if (nodes.get(id)?.callFrame.functionName === '(idle)') return;
    const us = profile.timeDeltas[i + 1] ?? 0;
    total += us;
    const owner = ownerOf(id);
    into.set(owner, (into.get(owner) ?? 0) + us);
  });
  return total;
}

const args = process.argv.slice(2);
const dir = args[0];
if (dir === undefined || dir.startsWith('--')) {
  console.error('usage: node --import tsx bench/profile/summary.ts DIR [--by file|function] [--top N] [--cluster]');
  process.exit(2);
}
const by = stringArg(args, 'by') === 'function' ? 'function' : 'file';
const top = numberArg(args, 'top', 40);
const cluster = args.includes('--cluster');
const owners = new Map<string, number>();
let total = 0;
let files = 0;
for (const name of readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'))) {
  const profile = JSON.parse(readFileSync(join(dir, name), 'utf8')) as CpuProfile;
  if (profile.nodes.some((n) => n.callFrame.url.includes('/src/cluster/')) !== cluster) continue;
  total += summarize(profile, by, owners);
  files++;
}
console.log(`${files} profiles, ${(total / 1e6).toFixed(1)} s busy`);
for (const [owner, us] of [...owners].sort((a, b) => b[1] - a[1]).slice(0, top)) {
  console.log(`${(us / 1e6).toFixed(2).padStart(8)} s ${((100 * us) / Math.max(total, 1)).toFixed(1).padStart(5)}%  ${owner}`);
}
