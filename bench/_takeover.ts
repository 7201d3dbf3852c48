/**
 * The scale bench's takeover figures (issue #20: "when a member is lost, its instances are taken over
 * within the lease duration"): when every survivor acts under a member set without the killed member,
 * and what the time went on. Pure, so that the measurement itself is tested (test/shards/takeover-measure.test.ts).
 *
 * Times are the machine's wall clock (Date.now()): the bench and the agents run on one machine, so an
 * agent's own log time and the bench's are one clock. A survivor's view change is dated by the agent's
 * own log time (`agentAt`), not by when the bench read the line: the bench hosts the recording proxies
 * and reads the agents' stderr on a loop that is itself busy under load, and its reading time once
 * added seconds that were the bench's, not the agent's.
 */

/** One `acting under members` line of an agent. */
export interface ViewLine {
  /** The agent's own log time (ms). */
  agentAt: number;
  /** When the bench read the line (ms). */
  benchAt: number;
  members: string[];
  /** The members this view dropped, with when the agent last saw their Lease change (ISO time). */
  gone: Array<{ member: string; leaseLastChangedSeenAt?: string }>;
}

/** One change of a member Lease as the bench's own watch saw it (straight to the API server, not through a proxy). */
export interface LeaseChange {
  /** When the bench received the event (ms): an upper bound of when the API server stored the change. */
  at: number;
  resourceVersion: string;
  /** spec.renewTime (ms): the member's clock when it composed the renewal, i.e. before it sent it. */
  renewTime: number | undefined;
}

/** A Lease write of the killed member as its recording proxy saw it. */
export interface LeaseWrite {
  /** Arrival at the proxy (ms). */
  at: number;
  /** Until the answer was sent back; undefined when it never was. */
  ms?: number;
}

export interface TakeoverTrace {
  /** The kill (Date.now() ms), to find it in the agents' logs (`--logs`). */
  killedAt: number;
  /** Per survivor (in order), seconds from the kill to its first view without the killed member (its own log time); null if none. */
  survivorSeconds: Array<number | null>;
  /** The same, dated by when the bench read the line (what `takeoverSeconds` was until 2026-11-24 evening, with the last line). */
  survivorSecondsReadByBench: Array<number | null>;
  /** Seconds from the kill to the killed member's last Lease change that the bench's watch saw (negative: before the kill). */
  lastChangeSeconds: number | null;
  /** Its renewTime, from the kill (the killed member composed that renewal then). */
  lastRenewTimeSeconds: number | null;
  /** Seconds from the kill to when each survivor says it last saw that Lease change. */
  survivorSawLastChangeSeconds: Array<number | null>;
  /** Lease writes of the killed member that reached its proxy after the kill, or were still unanswered at the kill. */
  writesInFlightAtKill: number;
  writesAfterKill: number;
}

const seconds = (ms: number): number => Math.round(ms / 100) / 10;

/** A survivor's first view after the kill that leaves the killed member out. */
export function firstViewWithout(views: readonly ViewLine[], killedAt: number, victimId: string): ViewLine | undefined {
  return views.find((v) => v.agentAt >= killedAt && !v.members.includes(victimId));
}

/**
 * Milliseconds from the kill until every survivor acts under a member set without the killed member
 * (each survivor's first such view, by its own log time); undefined until all have one.
 */
export function takeoverMs(survivors: ReadonlyArray<readonly ViewLine[]>, killedAt: number, victimId: string): number | undefined {
  const firsts = survivors.map((views) => firstViewWithout(views, killedAt, victimId));
  if (firsts.length === 0 || !firsts.every((v) => v !== undefined)) return undefined;
  return Math.max(...firsts.map((v) => v.agentAt)) - killedAt;
}

export function takeoverTrace(o: { survivors: ReadonlyArray<readonly ViewLine[]>; killedAt: number; victimId: string; victimLease: readonly LeaseChange[]; victimWrites: readonly LeaseWrite[] }): TakeoverTrace {
  const { killedAt, victimId } = o;
  const firsts = o.survivors.map((views) => firstViewWithout(views, killedAt, victimId));
  const last = o.victimLease.at(-1);
  return {
    killedAt,
    survivorSeconds: firsts.map((v) => (v === undefined ? null : seconds(v.agentAt - killedAt))),
    survivorSecondsReadByBench: firsts.map((v) => (v === undefined ? null : seconds(v.benchAt - killedAt))),
    lastChangeSeconds: last === undefined ? null : seconds(last.at - killedAt),
    lastRenewTimeSeconds: last?.renewTime === undefined ? null : seconds(last.renewTime - killedAt),
    survivorSawLastChangeSeconds: firsts.map((v) => {
      const seen = v?.gone.find((g) => g.member === victimId)?.leaseLastChangedSeenAt;
      return seen === undefined ? null : seconds(Date.parse(seen) - killedAt);
    }),
    writesInFlightAtKill: o.victimWrites.filter((w) => w.at < killedAt && (w.ms === undefined || w.at + w.ms >= killedAt)).length,
    writesAfterKill: o.victimWrites.filter((w) => w.at >= killedAt).length,
  };
}
