/**
 * The format of `status/<namespace>/<instance>.yaml` as a zod schema: the one definition that
 * scripts/gen-schemas.ts publishes as schemas/status.json for tools that read status files. Objects
 * are open (`looseObject`): newer agents may add fields, and readers must ignore what they do not know.
 */
import { z } from 'zod';
import { STATUS_API_VERSION } from './status-file.js';

const runState = z.looseObject({
  status: z.enum(['NEVER_RUN', 'PENDING', 'IN_PROGRESS', 'ERROR', 'COMPLETE', 'FATAL_ERROR', 'PAUSED', 'WAITING', 'STOPPED']),
  startedAt: z.string().optional(),
  finishedAt: z.string().optional(),
  message: z.string().optional(),
  error: z.looseObject({ code: z.string(), message: z.string(), object: z.string().optional() }).optional(),
  attempt: z.number().optional(),
});

const planRun = z.looseObject({
  id: z.string(),
  plan: z.string(),
  reason: z.string(),
  args: z.record(z.string(), z.string()),
  frameworkVersion: z.string(),
  strategy: z.enum(['serial', 'parallel', 'serial-canary', 'parallel-canary']),
  state: runState,
  phases: z.array(z.looseObject({ name: z.string(), strategy: z.enum(['serial', 'parallel', 'serial-canary', 'parallel-canary']), state: runState, steps: z.array(z.looseObject({ name: z.string(), state: runState })) })),
});

const sync = z
  .looseObject({
    status: z.enum(['Synced', 'OutOfSync', 'Progressing', 'Failed', 'Refused', 'Paused', 'Waiting', 'Stopped', 'Suspended']),
    desired: z.looseObject({ commit: z.string(), frameworkVersion: z.string().optional() }),
    lastApplied: z.looseObject({ commit: z.string().optional(), frameworkVersion: z.string(), at: z.string().optional(), plan: z.string().optional(), runId: z.string().optional() }).optional(),
    failure: z
      .looseObject({
        plan: z.string(), runId: z.string(), phase: z.string().optional(), step: z.string().optional(), code: z.string(), message: z.string(),
        object: z.string().optional(), attempts: z.number(), nextRetryAt: z.string(),
      })
      .optional(),
    message: z.string(),
  })
  .describe('is the desired commit fully applied; if not, which plan failed, where, and when it is retried');

const healthState = z.enum(['Healthy', 'Progressing', 'Missing', 'Degraded', 'Unknown']);
const health = z
  .looseObject({
    status: healthState,
    checkedAt: z.string(),
    objects: z.array(z.looseObject({ object: z.string(), status: healthState, message: z.string() })),
  })
  .describe('live health of the instance objects, by the readiness gate rules');

const drift = z
  .looseObject({
    status: z.enum(['InSync', 'Drifted', 'NotChecked', 'Unknown']),
    policy: z.enum(['repair', 'report', 'ignore']),
    checkedAt: z.string(),
    objects: z.array(z.looseObject({ object: z.string(), reason: z.string(), fields: z.array(z.string()).optional(), managers: z.array(z.string()).optional(), action: z.enum(['repair', 'report']) })),
    fights: z.array(z.looseObject({ object: z.string(), fields: z.array(z.string()), managers: z.array(z.string()), repairs: z.number(), firstRepairAt: z.string(), lastRepairAt: z.string(), backoffUntil: z.string().optional() })),
    errors: z.array(z.string()),
    message: z.string().optional(),
    lastRepair: z.looseObject({ runId: z.string(), at: z.string(), result: z.string(), objects: z.string() }).optional(),
  })
  .describe('objects that differ from the applied desired state, fights with other field managers, the last repair');

export const statusSchema = z
  .looseObject({
    apiVersion: z.literal(STATUS_API_VERSION),
    kind: z.literal('InstanceStatus'),
    instance: z.looseObject({ namespace: z.string(), name: z.string() }),
    framework: z.looseObject({ name: z.string(), version: z.string().optional() }),
    state: z.enum(['PENDING', 'IN_PROGRESS', 'COMPLETE', 'ERROR', 'FATAL_ERROR', 'REFUSED', 'REMOVED', 'PAUSED', 'WAITING', 'STOPPED', 'SUSPENDED']),
    suspended: z.looseObject({ since: z.string(), commit: z.string() }).optional().describe('suspend: true in the instance file: nothing is applied or repaired, schedules hold'),
    sourceCommit: z.string(),
    updatedAt: z.string(),
    observed: z.looseObject({ instance: z.string(), framework: z.string().optional(), request: z.string().optional() }),
    refusal: z.looseObject({ code: z.string(), message: z.string(), at: z.string(), problems: z.array(z.string()).optional(), commit: z.string().optional() }).optional(),
    parent: z.looseObject({ instance: z.string(), task: z.string() }).optional().describe('a child instance: created, updated and removed by this parent instance (Instance task)'),
    waiting: z.looseObject({ on: z.array(z.looseObject({ instance: z.string(), reason: z.string() })), since: z.string(), message: z.string() }).optional(),
    sync: sync.optional(),
    health: health.optional(),
    drift: drift.optional(),
    plans: z.record(z.string(), z.looseObject({ id: z.string(), reason: z.string(), state: runState })).optional().describe('the last run of each plan'),
    cluster: z
      .looseObject({ name: z.string(), server: z.string().optional(), unreachable: z.looseObject({ since: z.string(), code: z.string(), message: z.string() }).optional() })
      .optional()
      .describe("the target cluster of an instance with `cluster:` (absent: the agent's own); `server`: the API server its objects are on; `unreachable` while it cannot be used"),
    currentPlan: planRun.optional(),
    recentPlans: z.array(z.looseObject({ id: z.string(), plan: z.string(), reason: z.string(), state: runState })),
    inventory: z.array(z.string()),
    schedules: z.array(z.looseObject({ plan: z.string(), cron: z.string(), timezone: z.string(), lastRun: z.string().optional(), nextRun: z.string().optional() })),
    handledRequests: z.array(z.string()),
    requests: z
      .array(z.looseObject({ id: z.string(), action: z.string(), via: z.enum(['git', 'direct']), result: z.enum(['done', 'refused']), event: z.string(), message: z.string(), code: z.string().optional(), at: z.string(), by: z.string().optional(), reason: z.string().optional(), plan: z.string().optional(), runId: z.string().optional(), phase: z.string().optional(), step: z.string().optional(), pod: z.string().optional() }))
      .optional()
      .describe('operator requests carried out or refused, newest first'),
    podRequests: z
      .array(z.looseObject({ id: z.string(), action: z.enum(['pod-restart', 'pod-replace']), pod: z.string(), by: z.string().optional(), waitsFor: z.string() }))
      .optional()
      .describe('pod requests not carried out yet, oldest first, and what each waits for (a running plan)'),
  })
  .describe('Baton status file written by the agent: status/<namespace>/<instance>.yaml');

/** schemas/status.json, as scripts/gen-schemas.ts writes it. */
export function statusJsonSchema(baseUrl: string): string {
  const json = z.toJSONSchema(statusSchema, { io: 'input', unrepresentable: 'any', target: 'draft-2020-12' }) as Record<string, unknown>;
  return `${JSON.stringify({ ...json, $id: `${baseUrl}status.json`, title: 'Baton status file' }, null, 2)}\n`;
}
