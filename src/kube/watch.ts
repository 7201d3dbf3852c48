/**
 * A watch as an AsyncIterable: opens the stream, frames its lines into events, and ends cleanly
 * when the signal aborts or the consumer stops; a broken stream is a KubeTransportError.
 */
import type { IncomingMessage } from 'node:http';
import type { WatchEvent } from './client.js';
import { KubeApiError, KubeTransportError } from './errors.js';
import type { Transport } from './transport.js';
import { JsonLines, toWatchEvent } from './watch-lines.js';

// A function, not an inline test: TypeScript would keep the narrowing from before an await.
function isAborted(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}

export async function* watchStream(http: Transport, path: string, signal: AbortSignal | undefined): AsyncGenerator<WatchEvent> {
  if (isAborted(signal)) return;
  let res: IncomingMessage;
  try {
    res = await http.stream({ method: 'GET', path }, signal);
  } catch (err) {
    if (isAborted(signal)) return;
    throw err;
  }
  const stop = (): void => void res.destroy();
  signal?.addEventListener('abort', stop, { once: true });
  const lines = new JsonLines();
  const context = { method: 'GET', path };
  try {
    for await (const chunk of res as AsyncIterable<Buffer>) {
      for (const raw of lines.push(chunk)) yield toWatchEvent(raw, context);
    }
    for (const raw of lines.end()) yield toWatchEvent(raw, context);
  } catch (err) {
    if (isAborted(signal)) return;
    if (err instanceof KubeTransportError || err instanceof KubeApiError) throw err;
    throw new KubeTransportError(`GET ${path}: watch stream broke: ${err instanceof Error ? err.message : String(err)}`, context, err);
  } finally {
    signal?.removeEventListener('abort', stop);
    res.destroy();
  }
}
