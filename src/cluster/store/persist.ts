/**
 * Persistence for the simulated cluster: a snapshot (`snapshot.json`) plus an append-only journal of
 * writes (`journal.ndjson`, one JSON line per committed write, no fsync). Opening replays the journal
 * over the snapshot and compacts both into a new snapshot; closing compacts again. A crash loses at
 * most the write being appended (a torn last line is skipped).
 */
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, renameSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { BatonError } from '../../errors.js';
import type { KubeObject } from '../../kube/object.js';
import { isRecord } from '../../kube/object.js';

export interface JournalEntry {
  rv: number;
  key: string;
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  object: KubeObject;
}

export interface Snapshot {
  rv: number;
  objects: { key: string; object: KubeObject }[];
}

export class PersistenceError extends BatonError {
  constructor(message: string, context: Record<string, unknown>, cause?: unknown) {
    super('CLUSTER_STORE_PERSISTENCE', message, context, { cause });
  }
}

const SNAPSHOT = 'snapshot.json';
const JOURNAL = 'journal.ndjson';

function readSnapshot(dir: string): Snapshot {
  const file = join(dir, SNAPSHOT);
  if (!existsSync(file)) return { rv: 0, objects: [] };
  try {
    const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
    if (!isRecord(parsed) || typeof parsed.rv !== 'number' || !Array.isArray(parsed.objects)) throw new Error('expected {rv, objects}');
    return parsed as unknown as Snapshot;
  } catch (err) {
    throw new PersistenceError(`${file}: unreadable snapshot: ${err instanceof Error ? err.message : String(err)}`, { file }, err);
  }
}

/** The state on disk: snapshot with the journal replayed over it. */
export function loadState(dir: string): Snapshot {
  const snap = readSnapshot(dir);
  const objects = new Map<string, { key: string; object: KubeObject }>();
  const id = (key: string, o: KubeObject): string => `${key}|${o.metadata.namespace ?? ''}|${o.metadata.name ?? ''}`;
  for (const e of snap.objects) objects.set(id(e.key, e.object), e);
  let rv = snap.rv;
  const jfile = join(dir, JOURNAL);
  if (existsSync(jfile)) {
    for (const line of readFileSync(jfile, 'utf8').split('\n')) {
      if (line.trim() === '') continue;
      let entry: JournalEntry;
      try {
        entry = JSON.parse(line) as JournalEntry;
      } catch {
        break; // torn final write of a crash
      }
      if (entry.rv <= rv) continue;
      rv = entry.rv;
      if (entry.type === 'DELETED') objects.delete(id(entry.key, entry.object));
      else objects.set(id(entry.key, entry.object), { key: entry.key, object: entry.object });
    }
  }
  return { rv, objects: [...objects.values()] };
}

export class Journal {
  private fd: number | undefined;

  constructor(private readonly dir: string) {
    mkdirSync(dir, { recursive: true });
  }

  /** Writes the snapshot atomically and starts an empty journal. */
  compact(state: Snapshot): void {
    this.closeFd();
    const tmp = join(this.dir, `${SNAPSHOT}.tmp`);
    writeFileSync(tmp, JSON.stringify(state));
    renameSync(tmp, join(this.dir, SNAPSHOT));
    writeFileSync(join(this.dir, JOURNAL), '');
    this.fd = openSync(join(this.dir, JOURNAL), 'a');
  }

  append(entry: JournalEntry): void {
    if (this.fd === undefined) return;
    writeSync(this.fd, `${JSON.stringify(entry)}\n`);
  }

  close(): void {
    this.closeFd();
  }

  private closeFd(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}
