/**
 * The lease renewer thread (see index.ts): its own client to the API server, made like the agent's
 * (createKubeClient from the same options), and the same lease code the agent runs in-thread
 * (MemberLease, LeaderElector), writing its fence through shared memory. It renews only while the
 * main thread's heartbeat is recent: a busy agent keeps its Lease, a stuck or paused one gives it up.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { BatonError, errorMessage } from '../../errors.js';
import { LeaseFence } from '../../fencing/lease-fence.js';
import { monotonicMs, SharedFenceCell } from '../../fencing/shared-fence.js';
import { KubeApiError } from '../../kube/errors.js';
import { createKubeClient } from '../../kube/http-client.js';
import { LeaderElector, realClock } from '../../sync/leader.js';
import { MemberLease } from '../member-lease.js';
import type { FromRenewer, RenewerWorkerData, ToRenewer, WireError } from './protocol.js';

if (parentPort === null) throw new Error('lease-renewer/worker.ts runs as a worker thread');
const port = parentPort;
const data = workerData as RenewerWorkerData;
const post = (message: FromRenewer): void => port.postMessage(message);
const log = (level: 'info' | 'warn' | 'error', message: string, fields?: Record<string, unknown>): void => post({ type: 'log', level, message, ...(fields ? { fields } : {}) });

const cell = new SharedFenceCell(data.fence);
const fence = new LeaseFence({ renewDeadlineMs: data.renewDeadlineMs, shared: { cell, side: 'renewer' } });
fence.onLost((why) => post({ type: 'lost', why }));

/** A reason to stop renewing when the main thread did not beat within the liveness bound. */
const mayRenew = (): string | undefined => {
  const quiet = monotonicMs() - cell.lastBeat();
  if (quiet <= data.livenessMs) return undefined;
  return `the agent's main thread did not check in for ${Math.round(quiet)} ms (liveness bound ${data.livenessMs} ms): it is stuck or paused, so its lease is given up`;
};

const client = await createKubeClient(data.client);
const { task } = data;
const timing = { renewDeadlineMs: data.renewDeadlineMs, retryPeriodMs: data.retryPeriodMs };
const member = task.kind === 'member'
  ? new MemberLease({ client, ...task, ...timing, fence, now: () => Date.now(), sleep: (ms, signal) => realClock.sleep(ms, signal), mayRenew, log })
  : undefined;
const elector = task.kind === 'leader'
  ? new LeaderElector({ client, ...task, ...timing, fence, mayRenew, log })
  : undefined;

/** The loop running now (acquiring or renewing) and how to halt it. */
let running: { kind: 'acquire' | 'keep'; abort: AbortController; done: Promise<void> } | undefined;

function start(kind: 'acquire' | 'keep', loop: (signal: AbortSignal) => Promise<void>): void {
  const abort = new AbortController();
  const done = loop(abort.signal).catch((err: unknown) => log('error', `lease renewer: ${errorMessage(err)}`));
  running = { kind, abort, done };
}

/**
 * Renews every retry period until halted or lost. Started here as soon as the Lease is held (a member's
 * first renewal, a leader's acquisition), not when the main thread asks: a busy main thread would
 * otherwise delay the first renewals.
 */
function keep(): void {
  if (running !== undefined) return;
  start('keep', async (signal) => {
    if (member) await member.keepRenewing(signal);
    else await elector?.keepRenewing(signal);
  });
}

async function halt(): Promise<void> {
  const loop = running;
  running = undefined;
  loop?.abort.abort();
  await loop?.done;
}

const wire = (err: unknown): WireError => ({
  message: errorMessage(err),
  ...(err instanceof BatonError ? { code: err.code } : {}),
  ...(err instanceof KubeApiError ? { status: err.status } : {}),
});

async function handle(message: ToRenewer): Promise<void> {
  switch (message.type) {
    case 'renew':
      try {
        await member?.renew(message.view);
        post({ type: 'reply', id: message.id });
        if (running === undefined && !fence.isLost) keep();
      } catch (err) {
        post({ type: 'reply', id: message.id, error: wire(err) });
      }
      return;
    case 'acquire':
      await halt();
      start('acquire', async (signal) => {
        if (!(await elector?.acquire(signal))) return;
        post({ type: 'acquired' });
        // This loop ends here; the renewals start at once, in the thread.
        running = undefined;
        keep();
      });
      return;
    case 'keep':
      if (!fence.isLost) keep();
      return;
    case 'halt':
      await halt();
      post({ type: 'halted' });
      return;
    case 'stop':
      await halt();
      if (message.release && !fence.isLost) await (member ?? elector)?.release();
      client.close();
      post({ type: 'reply', id: message.id });
      port.close();
      return;
  }
}

// One message at a time, in order: a renewal with a view and a stop never overlap.
let queue: Promise<void> = Promise.resolve();
port.on('message', (message: ToRenewer) => {
  queue = queue.then(() => handle(message)).catch((err: unknown) => log('error', `lease renewer: ${errorMessage(err)}`));
});
