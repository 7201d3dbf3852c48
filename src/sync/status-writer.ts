/**
 * Writes status files back to Git: one commit per transition (each update submitted is one), or, with
 * `maxTransitionsPerCommit` (shard members), one commit per batch of what is queued, each transition
 * a trailer block of its own (status-message.ts); made without a working tree on top of the branch
 * tip, in the order submitted; updates arriving within the coalescing window share one push. A later
 * update never replaces an earlier one in the record: every transition submitted is recorded once. Pushes are safe. A rejected push fetches, replays the unpushed status commits on the
 * new tip and retries with backoff: never a force-push. Unpushed commits are kept under a ref in the
 * agent's persistent bare clone, so a restarted agent pushes them: no transition goes missing.
 *
 * A flush that still could not push (rejected on every attempt while several shard members push to the
 * branch, the remote unreachable) keeps its commits pending and tries again on its own after a pause
 * that doubles up to a cap: nothing waits for another transition or an idle poll to be pushed, and what
 * arrives meanwhile goes with that push (still one commit per transition).
 *
 * Shard members take turns (`turn`, push-turn/): a push waits for the member's turn and is first rebuilt
 * on the tip the previous holder pushed, so it is not rejected and no member starves.
 */
import git from 'isomorphic-git';
import { GitPushRejectedError } from '../git/errors.js';
import { trackingRef, type GitMirror } from '../git/mirror.js';
import { trailer, type Trailers } from '../git/trailers.js';
import type { ObjectStore } from '../git/tree.js';
import { writeCommit, writeTreeWith, type Identity } from '../git/write.js';
import { BatonError } from '../errors.js';
import { FenceLostError, type Fence } from '../fencing/index.js';
import type { HeldTurn, PushTurn } from './push-turn/index.js';
import { formatStatusMessage, transitionsOfMessage } from './status-message.js';

const ENCODER = new TextEncoder();

export const STATUS_FILE_TRAILER = 'Baton-Status-File';
/** The lease term of the leader that wrote a status commit (absent without leader election). */
export const LEASE_TERM_TRAILER = 'Baton-Lease-Term';

export interface StatusUpdate {
  /** Repository path, e.g. `status/prod/redis.yaml`. */
  path: string;
  /**
   * New content, or null to delete the file. A function gives the content when the commit is made and
   * is called only for the last update of its path in that commit: a status written at every
   * transition of a run (plan-started, ..., plan-complete) is serialized once per commit instead of once
   * per transition (issue #20: YAML serialization was a notable part of a shard member's CPU). It must
   * give the content as it was when submitted (status objects are never changed once built).
   */
  content: string | null | (() => string);
  summary: string;
  body?: string;
  trailers: Trailers;
}

export interface StatusWriterOptions {
  mirror: GitMirror;
  store: ObjectStore;
  /** The branch status commits go to (the watched branch, or the separate status branch). */
  branch: string;
  author: Identity;
  sign?: (payload: string) => Promise<string>;
  /** Updates arriving within this window share one push (default 1000 ms). */
  coalesceMs?: number;
  /**
   * The most transitions one commit records (default 1: a commit per transition). More: what is queued
   * when the writer commits goes into commits of up to this many transitions each, in order, every
   * transition a trailer block of its own (status-message.ts). A shard member's backlog of hundreds of
   * transitions then costs a few commits, trees and pack objects instead of one commit and 4-5 objects
   * each (with 500 instances a namespace, every commit rewrites a ~20 KB namespace tree).
   */
  maxTransitionsPerCommit?: number;
  /** Push attempts before giving up for now (the commits stay queued for the next flush). Default 8. */
  maxAttempts?: number;
  /** First retry delay; doubles each attempt, with jitter (default 100 ms). */
  backoffMs?: number;
  /** First pause before a flush that could not push is tried again on its own; doubles up to `retryMaxMs` (default 1000 ms). */
  retryMs?: number;
  /** Longest pause between such tries (default 30 s). */
  retryMaxMs?: number;
  /**
   * After a rejected push (another writer pushed first), this writer's next pushes wait at least this
   * long after its previous one (doubling with each rejection up to `paceMaxMs`, halving with each push
   * that goes through at once; with jitter), so that each carries everything queued meanwhile and
   * members racing to one branch stop spending attempts on each other. Default 500 ms. flush() itself
   * (a member letting go of instances, a shutdown) never waits.
   */
  paceMs?: number;
  /** The longest such wait (default 8000 ms). */
  paceMaxMs?: number;
  /**
   * How many writers push to this branch now (a shard set's live members; default 1). With more than
   * one, after each push this writer leaves the branch to the others for (writers - 1) x its last push's
   * duration (at least `yieldFloorMs`) before its next paced push: the member whose push went through
   * kept the pace of none, took every window and starved the rest (4 members at load 20: one member's
   * 832 commits landed, the other three's none in 12 minutes). flush() never waits.
   */
  pushers?: () => number;
  /** The shortest yield per other writer (default 250 ms: another member needs a fetch, a rebuild and a push). */
  yieldFloorMs?: number;
  /**
   * Take turns with the other writers of the branch (a shard set's push turn, push-turn/): each push
   * waits for this writer's turn, first come first served, and is rebuilt on the tip the previous
   * holder pushed before it is sent, so it goes through at once and no writer starves. The pace and
   * the yield (`paceMs`, `pushers`) are then not used: the turn spaces the pushes. A turn that cannot
   * be taken (the API server unreachable) is not waited for: the push goes as without turns.
   */
  turn?: PushTurn;
  /** Called when the push turn could not be taken (logs). */
  onTurnError?: (err: unknown) => void;
  /** Called when a flush could not push and will be tried again (logs). */
  onGiveUp?: (err: unknown, retryInMs: number) => void;
  /**
   * Extra `git -c` settings for this writer's pushes (GitMirror.push), e.g. cheaper pack settings.
   */
  pushConfig?: readonly string[];
  /** Called on each rejected push (metrics). */
  onRetry?: (attempt: number) => void;
  /**
   * The leader's fence: checked before every push, and its term goes into every commit
   * (`Baton-Lease-Term`). Without it (no leader election) pushes are not fenced.
   */
  fence?: Fence;
  /**
   * Unpushed status commits were dropped because a newer leader (a newer lease term) wrote status
   * meanwhile: what this writer queued is no longer the record (reload it from the branch).
   */
  onDropped?: (count: number) => void;
  /** The pause between push attempts (tests record it). */
  sleep?: (ms: number) => Promise<void>;
}

/** Milliseconds a writer spent in each stage of its flushes (sums since it started). */
export interface PushTimings {
  commitMs: number;
  /** Pushes that went through. */
  pushMs: number;
  /** Pushes the remote rejected (another member pushed first). */
  rejectedPushMs: number;
  pauseMs: number;
  fetchMs: number;
  /** Rebuilding unpushed commits on a fetched tip. */
  replayMs: number;
  replayedCommits: number;
  rejections: number;
  /** Waiting for the push turn (with turns), and the turns taken. */
  turnWaitMs: number;
  turns: number;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A status commit not yet on the branch, as its writer made it (see StatusWriter.unpushed). */
interface UnpushedCommit {
  sha: string;
  /** The status files it writes (null: deletes), the last content of each path in its transitions. */
  files: Map<string, Uint8Array | null>;
  /** How many transitions it records. */
  transitions: number;
  message: string;
  /** Its Baton-Lease-Term, when it has one. */
  term: number | undefined;
}

export class StatusPushError extends BatonError {
  constructor(branch: string, attempts: number, cause: unknown) {
    super('STATUS_PUSH_FAILED', `status commits could not be pushed to ${branch} after ${attempts} attempts; they stay queued and are retried`, { branch, attempts }, { cause });
  }
}

export class StaleLeaseTermError extends BatonError {
  constructor(branch: string, mine: number, newer: number) {
    super('STATUS_LEASE_TERM_STALE', `${branch} has status commits of lease term ${newer}, newer than this agent's ${mine}: another agent leads; its unpushed status commits are dropped`, { branch, mine, newer });
  }
}

export class StatusWriter {
  /** The unpushed status commits, oldest first, end at this ref of the bare clone. */
  readonly pendingRef: string;
  private queued: StatusUpdate[] = [];
  private chain: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  private mayHaveUnpushed = true;
  /**
   * The commits on the pending ref, oldest first, as this writer wrote them (file, content, message), so
   * that a rejected push rebuilds them on the fetched tip from memory: re-reading each commit and its
   * tree and listing them with git cost ~70 ms a commit on a loaded machine, and a member that lost
   * races piled up commits, made its rebuild longer and so lost more races. `undefined` while the
   * pending ref may hold commits this writer did not write (a previous process's): then git is read.
   */
  private unpushed: UnpushedCommit[] | undefined;
  /** The next try of a flush that could not push, and the pause before it. */
  private retryTimer: NodeJS.Timeout | undefined;
  private retryDelayMs = 0;
  private closed = false;
  /** The current wait between pushes (0 until a push is rejected), when the last push ended, and the paced push to come. */
  private pace = 0;
  private lastPushAt = 0;
  /** When this writer's last push went through and how long it took (ms), for the yield to other writers. */
  private lastThroughAt = 0;
  private lastPushMs = 0;
  private pacedTimer: NodeJS.Timeout | undefined;
  commits = 0;
  /** Transitions committed (more than `commits` when commits record several). */
  transitions = 0;
  pushes = 0;
  /** Flushes that could not push everything and were tried again later. */
  deferred = 0;
  /** Where a flush's time goes (milliseconds, summed), for the scale bench and the agent's debug log. */
  readonly timings: PushTimings = { commitMs: 0, pushMs: 0, rejectedPushMs: 0, pauseMs: 0, fetchMs: 0, replayMs: 0, replayedCommits: 0, rejections: 0, turnWaitMs: 0, turns: 0 };
  /** The branch tip the pending commits are built on, when this writer knows it. */
  private chainBase: string | undefined;

  constructor(private readonly options: StatusWriterOptions) {
    this.pendingRef = `refs/baton/pending/${options.branch}`;
  }

  /** Queues an update (one transition); it is committed at the end of the coalescing window (or by flush()). */
  submit(update: StatusUpdate): void {
    this.queued.push(update);
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      this.flushPaced().catch(() => undefined);
    }, this.options.coalesceMs ?? 1000);
  }

  /** Commits everything queued and pushes it (with a previous agent's leftovers). */
  flush(): Promise<void> {
    if (this.timer) { clearTimeout(this.timer); this.timer = undefined; }
    if (this.pacedTimer) { clearTimeout(this.pacedTimer); this.pacedTimer = undefined; }
    if (this.retryTimer) { clearTimeout(this.retryTimer); this.retryTimer = undefined; }
    const run = this.chain.then(async () => {
      await this.commitQueued();
      await this.push();
    });
    this.chain = run.then(() => { this.retryDelayMs = 0; }, (err: unknown) => this.retryLater(err));
    return run;
  }

  /**
   * Flushes until nothing is pending (a shutdown): a flush that could not push is tried again after the
   * same growing pauses until `withinMs` has passed; then its error is thrown and the commits stay queued.
   */
  async settle(withinMs: number): Promise<void> {
    const deadline = Date.now() + withinMs;
    for (let pause = this.options.retryMs ?? 1000; ; pause = Math.min(pause * 2, this.options.retryMaxMs ?? 30_000)) {
      try {
        await this.flush();
        return;
      } catch (err) {
        if (err instanceof FenceLostError || Date.now() + pause > deadline) throw err;
        await new Promise((r) => setTimeout(r, pause));
      }
    }
  }

  /** Whether status commits wait to be pushed (queued, or committed and not yet on the branch). */
  get pending(): boolean {
    return this.queued.length > 0 || this.mayHaveUnpushed;
  }

  /**
   * A flush failed with commits still pending: flush again after a pause (doubling, capped, with
   * jitter), unless another flush comes first or the writer is closed.
   */
  private retryLater(err: unknown): void {
    // A fence that is lost stays lost: this agent pushes nothing more (its successor records from the checkpoints).
    if (this.closed || !this.pending || err instanceof FenceLostError) return;
    const base = this.options.retryMs ?? 1000;
    this.retryDelayMs = Math.min(this.options.retryMaxMs ?? 30_000, this.retryDelayMs === 0 ? base : this.retryDelayMs * 2);
    const delay = Math.round(this.retryDelayMs * (0.75 + Math.random() * 0.5));
    this.deferred += 1;
    this.options.onGiveUp?.(err, delay);
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.flush().catch(() => undefined);
    }, delay);
    // A pending retry alone keeps no process alive (a one-shot run ends; its commits stay queued for the next start).
    this.retryTimer.unref();
  }

  /**
   * flush() when something may be waiting: queued updates, or commits not yet pushed (this writer's or
   * a previous agent's; checked once). Spares an idle poll the git processes of a push check.
   */
  flushIfPending(): Promise<void> {
    return this.pending ? this.flushPaced() : Promise.resolve();
  }

  /** Commits the transitions queued so far, in order (run on the chain: one commit at a time). */
  private async commitQueued(): Promise<void> {
    const updates = this.queued;
    this.queued = [];
    const t = performance.now();
    if (updates.length > 0) await this.commitAll(updates);
    this.timings.commitMs += performance.now() - t;
  }

  /**
   * flush(), but its push not sooner than the pace after the previous push (see `paceMs`): what is
   * queued is committed now (so commits keep the order of the transitions), and one push, when the
   * pace allows, carries everything committed until then. Resolves when the commits are made.
   */
  private flushPaced(): Promise<void> {
    // With turns, the turn spaces the pushes: waiting for it is the pace.
    const wait = this.options.turn !== undefined ? 0 : Math.max(this.pace === 0 ? 0 : this.lastPushAt + this.pace * (0.5 + Math.random()) - Date.now(), this.lastThroughAt + this.yieldMs() - Date.now());
    if (wait <= 0 && this.pacedTimer === undefined) return this.flush();
    this.pacedTimer ??= setTimeout(() => {
      this.pacedTimer = undefined;
      if (!this.closed) this.flush().catch(() => undefined);
    }, Math.max(0, wait));
    if (this.timer) { clearTimeout(this.timer); this.timer = undefined; }
    const run = this.chain.then(() => this.commitQueued());
    this.chain = run.catch(() => undefined);
    return run;
  }

  /** How long after its last push this writer leaves the branch to the others (see `pushers`), with jitter. */
  private yieldMs(): number {
    const others = Math.max(0, (this.options.pushers?.() ?? 1) - 1);
    if (others === 0 || this.lastThroughAt === 0) return 0;
    return others * Math.max(this.lastPushMs, this.options.yieldFloorMs ?? 250) * (0.75 + Math.random() * 0.5);
  }

  /** Stops the coalescing timer and the retries (call flush() first to keep queued updates). */
  close(): void {
    this.closed = true;
    if (this.pacedTimer) { clearTimeout(this.pacedTimer); this.pacedTimer = undefined; }
    if (this.timer) { clearTimeout(this.timer); this.timer = undefined; }
    if (this.retryTimer) { clearTimeout(this.retryTimer); this.retryTimer = undefined; }
  }

  get queuedCount(): number {
    return this.queued.length;
  }

  private async commitAll(updates: StatusUpdate[]): Promise<void> {
    const pending = await this.options.mirror.revParse(this.pendingRef);
    // Nothing pending: the chain this writer starts is all its own, and known in memory.
    if (pending === undefined) this.unpushed = [];
    let tip = pending ?? (await this.options.mirror.revParse(trackingRef(this.options.branch)));
    if (pending === undefined) this.chainBase = tip;
    const per = Math.max(1, this.options.maxTransitionsPerCommit ?? 1);
    for (let i = 0; i < updates.length; i += per) {
      const batch = updates.slice(i, i + per);
      // The last update of a path is its content in this commit (Map order: each path where it came first).
      const latest = new Map<string, StatusUpdate['content']>();
      for (const u of batch) latest.set(u.path, u.content);
      const files = new Map<string, Uint8Array | null>();
      for (const [path, content] of latest) files.set(path, content === null ? null : ENCODER.encode(typeof content === 'function' ? content() : content));
      const message = this.messageOf(batch);
      tip = await this.commitOne(tip, files, message, batch.length);
      this.unpushed?.push({ sha: tip, files, transitions: batch.length, message, term: this.options.fence?.term });
    }
    if (tip !== undefined) await this.options.mirror.setRef(this.pendingRef, tip);
    this.mayHaveUnpushed = true;
  }

  /** One status commit on `parent`: a transition is recorded even when the file did not change. */
  private async commitOne(parent: string | undefined, files: ReadonlyMap<string, Uint8Array | null>, message: string, transitions: number): Promise<string> {
    const { store } = this.options;
    const baseTree = parent === undefined ? undefined : await store.treeOfCommit(parent);
    const tree = await writeTreeWith(store, baseTree, files);
    this.commits += 1;
    this.transitions += transitions;
    return writeCommit(store, {
      tree, parents: parent === undefined ? [] : [parent], message, author: this.options.author,
      ...(this.options.sign ? { sign: this.options.sign } : {}),
    });
  }

  /** Pushes the pending commits, in this writer's turn when it takes turns. */
  private async push(): Promise<void> {
    const { turn, mirror } = this.options;
    if (turn === undefined || (await mirror.revParse(this.pendingRef)) === undefined) {
      await this.pushAttempts(undefined);
      return;
    }
    const t = performance.now();
    let held: HeldTurn | undefined;
    try {
      held = await turn.take();
    } catch (err) {
      this.options.onTurnError?.(err);
    }
    this.timings.turnWaitMs += performance.now() - t;
    if (held === undefined) {
      await this.pushAttempts(undefined);
      return;
    }
    this.timings.turns += 1;
    let pushed: string | undefined;
    try {
      // What was submitted while this writer waited for its turn goes with this push.
      await this.commitQueued();
      pushed = await this.pushAttempts(held.tip);
    } finally {
      await held.release(pushed);
    }
  }

  /**
   * Pushes the pending commits, rebuilding them on the fetched tip after each rejection; returns the
   * tip pushed (undefined: nothing was pending). `knownTip`: the branch tip the previous holder of the
   * push turn pushed: when the pending commits are built on another one, they are rebuilt on it first
   * (a fetch, when the clone does not have it yet) rather than after a rejected push.
   */
  private async pushAttempts(knownTip: string | undefined): Promise<string | undefined> {
    const { mirror, branch } = this.options;
    const attempts = this.options.maxAttempts ?? 8;
    if (knownTip !== undefined && knownTip !== this.chainBase) {
      const pending = await mirror.revParse(this.pendingRef);
      if (pending === undefined) { this.unpushed = []; this.mayHaveUnpushed = false; return undefined; }
      let t = performance.now();
      if ((await mirror.revParse(trackingRef(branch))) !== knownTip) await mirror.fetch(branch);
      this.timings.fetchMs += performance.now() - t;
      t = performance.now();
      await this.replay(pending);
      this.timings.replayMs += performance.now() - t;
    }
    for (let attempt = 1; ; attempt++) {
      const tip = await mirror.revParse(this.pendingRef);
      if (tip === undefined) { this.unpushed = []; this.mayHaveUnpushed = false; return undefined; }
      let t = performance.now();
      try {
        // A leader past its renew deadline (or deposed) pushes nothing; the commits stay queued.
        this.options.fence?.check(`push status commits to ${branch}`);
        await mirror.push(tip, branch, this.options.pushConfig);
        this.lastPushMs = performance.now() - t;
        this.timings.pushMs += this.lastPushMs;
        this.lastPushAt = Date.now();
        this.lastThroughAt = this.lastPushAt;
        // Through at the first attempt: the branch is less contended than the pace assumed.
        if (attempt === 1) this.pace = this.pace <= (this.options.paceMs ?? 500) ? 0 : this.pace / 2;
        this.pushes += 1;
        await mirror.setRef(this.pendingRef, undefined);
        this.unpushed = [];
        this.mayHaveUnpushed = false;
        this.chainBase = undefined;
        return tip;
      } catch (err) {
        if (!(err instanceof GitPushRejectedError)) throw err;
        this.timings.rejectedPushMs += performance.now() - t;
        this.timings.rejections += 1;
        this.lastPushAt = Date.now();
        this.pace = Math.min(this.options.paceMaxMs ?? 8000, Math.max(this.options.paceMs ?? 500, this.pace * 2));
        this.options.onRetry?.(attempt);
        if (attempt >= attempts) throw new StatusPushError(branch, attempt, err);
        // The pause comes before the fetch, never between the fetch and the push: the branch tip this
        // push is rebuilt on must be as fresh as possible when it is pushed, or another shard member
        // pushes in between and the push is rejected again (4 members pushing livelocked for minutes).
        const delay = (this.options.backoffMs ?? 100) * 2 ** (attempt - 1);
        t = performance.now();
        await (this.options.sleep ?? sleep)(delay / 2 + Math.random() * delay);
        this.timings.pauseMs += performance.now() - t;
        t = performance.now();
        await mirror.fetch(branch);
        this.timings.fetchMs += performance.now() - t;
        t = performance.now();
        await this.replay(tip);
        this.timings.replayMs += performance.now() - t;
      }
    }
  }

  /**
   * Rebuilds the unpushed status commits ending at `tip` on the freshly fetched branch tip. Commits of a
   * lease term older than one the branch gained meanwhile were written by a deposed leader: they are
   * dropped, not replayed over the new leader's record (which it derived without them).
   */
  private async replay(tip: string): Promise<void> {
    const { mirror, branch } = this.options;
    const remote = await mirror.revParse(trackingRef(branch));
    // Only commits that carry a lease term can be outdated by a newer one (shard members' carry none).
    const known = this.unpushed !== undefined && this.unpushed.at(-1)?.sha === tip ? this.unpushed : undefined;
    const termed = known === undefined || known.some((c) => c.term !== undefined);
    const newer = remote === undefined || !termed ? undefined : await this.newestTerm(remote, tip);
    const commits = known ?? (await this.readUnpushed(tip, remote));
    let base = remote;
    let dropped = 0;
    const rebuilt: UnpushedCommit[] = [];
    for (const c of commits) {
      if (newer !== undefined && c.term !== undefined && c.term < newer) { dropped++; continue; }
      base = await this.commitOne(base, c.files, c.message, c.transitions);
      rebuilt.push({ ...c, sha: base });
      this.timings.replayedCommits += 1;
    }
    await mirror.setRef(this.pendingRef, base === remote ? undefined : base);
    this.unpushed = rebuilt;
    this.chainBase = remote;
    if (dropped > 0) this.options.onDropped?.(dropped);
    const mine = this.options.fence?.term;
    if (newer !== undefined && mine !== undefined && mine < newer) throw new StaleLeaseTermError(branch, mine, newer);
  }

  /** The unpushed status commits ending at `tip` (not on `remote`), read back from the clone, oldest first. */
  private async readUnpushed(tip: string, remote: string | undefined): Promise<UnpushedCommit[]> {
    const { mirror, store } = this.options;
    const listing = await mirror.read(['rev-list', '--reverse', '--topo-order', tip, ...(remote ? ['--not', remote] : [])]);
    const out: UnpushedCommit[] = [];
    for (const sha of listing.split('\n').filter((s) => s !== '')) {
      const { commit } = await git.readCommit({ fs: store.fs, gitdir: store.gitdir, oid: sha, cache: store.cache });
      const recorded = transitionsOfMessage(commit.message);
      const paths = recorded.flatMap((t) => t.trailers.get(STATUS_FILE_TRAILER) ?? []);
      if (paths.length === 0) continue; // not one of ours (a rewritten remote): never re-apply others' work
      const first = recorded[0];
      const term = first === undefined ? undefined : trailer(first.trailers, LEASE_TERM_TRAILER);
      const tree = await store.at(sha);
      const files = new Map<string, Uint8Array | null>();
      for (const path of paths) files.set(path, (await tree.read(path)) ?? null);
      out.push({ sha, files, transitions: recorded.length, message: commit.message, term: term !== undefined && /^\d+$/.test(term) ? Number(term) : undefined });
    }
    return out;
  }

  /** The newest lease term among the status commits the branch gained that `tip` does not have. */
  private async newestTerm(remote: string, tip: string): Promise<number | undefined> {
    const out = await this.options.mirror.read(['log', `--format=%(trailers:key=${LEASE_TERM_TRAILER},valueonly,separator=%x2C)`, remote, '--not', tip]);
    const terms = out.split(/[\n,]/).map((t) => t.trim()).filter((t) => /^\d+$/.test(t)).map(Number);
    return terms.length === 0 ? undefined : Math.max(...terms);
  }

  /** One transition: as always. Several: a trailer block each, with its status file and lease term (status-message.ts). */
  private messageOf(updates: readonly StatusUpdate[]): string {
    const term = this.options.fence?.term;
    return formatStatusMessage(updates.map((u) => ({
      summary: u.summary,
      ...(u.body !== undefined ? { body: u.body } : {}),
      trailers: [...u.trailers, [STATUS_FILE_TRAILER, u.path], ...(term !== undefined ? [[LEASE_TERM_TRAILER, String(term)] as const] : [])],
    })));
  }
}
