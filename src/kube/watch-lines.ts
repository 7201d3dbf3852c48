/**
 * Watch stream framing: one JSON event per line, but chunks split lines (and UTF-8 characters)
 * anywhere. ERROR events carry a Status and end the watch as a KubeApiError (410 Gone: re-list).
 */
import { StringDecoder } from 'node:string_decoder';
import type { WatchEvent, WatchEventType } from './client.js';
import { KubeApiError, KubeTransportError } from './errors.js';
import { isRecord, type KubeObject } from './object.js';
import { asStatus, reasonForCode } from './status.js';

export class JsonLines {
  private readonly decoder = new StringDecoder('utf8');
  private rest = '';

  /** The complete lines this chunk finishes, parsed. */
  push(chunk: Buffer | string): unknown[] {
    this.rest += typeof chunk === 'string' ? chunk : this.decoder.write(chunk);
    const lines = this.rest.split('\n');
    this.rest = lines.pop() ?? '';
    return lines.filter((l) => l.trim() !== '').map(parseLine);
  }

  /** A last line without its newline when the stream ends. */
  end(): unknown[] {
    const last = this.rest + this.decoder.end();
    this.rest = '';
    return last.trim() === '' ? [] : [parseLine(last)];
  }
}

function parseLine(line: string): unknown {
  try {
    return JSON.parse(line) as unknown;
  } catch (err) {
    throw new KubeTransportError(`malformed watch event: ${line.slice(0, 200)}`, { line: line.slice(0, 200) }, err);
  }
}

const EVENT_TYPES: ReadonlySet<string> = new Set<WatchEventType>(['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK']);

export function toWatchEvent(raw: unknown, context: Record<string, unknown>): WatchEvent {
  if (!isRecord(raw) || typeof raw.type !== 'string') {
    throw new KubeTransportError('watch event without a type', context);
  }
  if (raw.type === 'ERROR') {
    const status = asStatus(raw.object) ?? { message: 'watch error without a Status' };
    const code = status.code ?? 500;
    throw new KubeApiError(code, { ...status, code, reason: status.reason || reasonForCode(code) }, { ...context, watch: true });
  }
  if (!EVENT_TYPES.has(raw.type) || !isRecord(raw.object)) {
    throw new KubeTransportError(`unexpected watch event type "${raw.type}"`, context);
  }
  return { type: raw.type as WatchEventType, object: raw.object as KubeObject };
}
