/**
 * The one definition of each file format (zod 4). `scripts/gen-schemas.ts` turns these into the JSON
 * Schema files under schemas/ that editors use through `$schema`; a test fails when those are stale.
 * Cross-file rules (a trigger names an existing plan, ...) live in validate.ts, not here.
 */
import { z } from 'zod';
import { DNS1123_LABEL, DURATION_PATTERN, SEMVER } from './versions.js';

export const API_VERSION = 'baton.dev/v1alpha1';

const dnsLabel = z.string().max(63).regex(DNS1123_LABEL, 'must be a DNS-1123 label: lowercase letters, digits and "-", at most 63 characters');
const semver = z.string().regex(SEMVER, 'must be a semantic version such as 1.2.0');
const duration = z.string().regex(DURATION_PATTERN, 'must be a duration such as 90s, 10m or 1h30m');
const strategy = z.enum(['serial', 'parallel', 'serial-canary', 'parallel-canary']);
const schemaRef = z.string().optional().describe('JSON Schema reference for editors; ignored by Baton');

export const paramTypes = ['string', 'integer', 'number', 'boolean', 'array', 'object'] as const;
export type ParamType = (typeof paramTypes)[number];

/** How a parameter's value is generated once per instance (docs/composition.md, "Generated values"). */
const generatedLength = z.number().int().min(1).max(4096);
export const generateSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('password'), length: generatedLength.optional().describe('characters (default 24)'), alphabet: z.string().min(2).optional().describe('characters to draw from (default letters and digits)') }),
  z.strictObject({ kind: z.literal('token'), length: generatedLength.optional().describe('characters (default 40)'), alphabet: z.string().min(2).optional().describe('characters to draw from (default lowercase hex digits)') }),
  z.strictObject({ kind: z.literal('uuid') }),
  z.strictObject({ kind: z.literal('bytes'), length: generatedLength.optional().describe('random bytes (default 32)'), encoding: z.enum(['base64', 'hex']).optional().describe('how the bytes are written (default base64)') }),
]);
export type GenerateDecl = z.output<typeof generateSchema>;

export const paramSchema = z.strictObject({
  // __proto__ would set the prototype of the values object instead of declaring a parameter.
  name: z.string().regex(/^(?!__proto__$)[A-Za-z_][A-Za-z0-9_]*$/, 'must be an identifier: letters, digits and "_" (not __proto__)'),
  description: z.string().optional(),
  type: z.enum(paramTypes).default('string'),
  default: z.unknown().optional(),
  required: z.boolean().optional().describe('implied when there is no default'),
  enum: z.array(z.unknown()).min(1).optional(),
  minimum: z.number().optional(),
  maximum: z.number().optional(),
  pattern: z.string().optional(),
  immutable: z.boolean().optional(),
  trigger: z.string().optional().describe('the plan a change of this value runs'),
  sensitive: z.boolean().optional(),
  group: z.string().optional(),
  /** Generated once per instance, kept in a Secret the instance owns, never in Git; implies sensitive. */
  generate: generateSchema.optional(),
});
export const paramsFileSchema = z.array(paramSchema).describe('Baton params.yaml: parameter declarations');
export type ParamDecl = z.output<typeof paramSchema>;

const resources = z.array(z.string().min(1)).min(1);
export const taskSchema = z.discriminatedUnion('kind', [
  z.strictObject({ name: z.string().min(1), kind: z.literal('Apply'), resources, force: z.boolean().optional() }),
  z.strictObject({ name: z.string().min(1), kind: z.literal('Delete'), resources }),
  z.strictObject({ name: z.string().min(1), kind: z.literal('Toggle'), parameter: z.string().min(1), resources }),
  z.strictObject({
    name: z.string().regex(/^[a-z0-9]([a-z0-9-]{0,38}[a-z0-9])?$/, 'a Pipe task name is part of an object name: lowercase letters, digits and "-", at most 40 characters'),
    kind: z.literal('Pipe'),
    /** The template rendering the Job whose output becomes the pipe (exactly one batch/v1 Job). */
    resources: z.array(z.string().min(1)).length(1),
    pipe: z.strictObject({
      kind: z.enum(['ConfigMap', 'Secret']),
      /** The output files the Job writes (keys of its termination message); templates read `pipes.<task>.<file>`. */
      files: z.array(z.string().regex(/^[-._a-zA-Z0-9]+$/, 'must be a valid ConfigMap key')).min(1),
      /** The most bytes of output accepted (default and at most 4096, the termination message limit). */
      maxBytes: z.number().int().min(1).max(4096).optional(),
    }),
  }),
  z.strictObject({
    name: z.string().min(1),
    kind: z.literal('Instance'),
    /** The child's framework (in this repository's frameworks/). */
    framework: dnsLabel,
    /** A version range: `1.2.3`, `^1.2.0`, `~1.2.0`, or comparators such as `>=1.0.0 <2.0.0`; the highest matching version is used. */
    version: z.string().min(1),
    /** The template rendering the child: `{apiVersion: baton.dev/v1alpha1, kind: Instance, metadata: {name}, params}`. */
    resources: z.array(z.string().min(1)).length(1),
  }),
]);
export type TaskDecl = z.output<typeof taskSchema>;

export const stepSchema = z.strictObject({
  name: z.string().min(1),
  tasks: z.array(z.string().min(1)).min(1),
  timeout: duration.optional(),
});
export const phaseSchema = z.strictObject({
  name: z.string().min(1),
  strategy: strategy.default('serial'),
  steps: z.array(stepSchema).min(1),
});
export const planArgTypes = ['string', 'integer', 'number', 'boolean'] as const;
/** One argument a plan takes (`--arg`, `baton plan trigger --arg`, a schedule's `args`), checked before anything runs. */
export const planArgSchema = z.strictObject({
  name: z.string().regex(/^(?!__proto__$)[A-Za-z_][A-Za-z0-9_]*$/, 'must be an identifier: letters, digits and "_" (not __proto__)'),
  type: z.enum(planArgTypes).default('string').describe('what the text given must read as; templates receive it as a string'),
  required: z.boolean().default(false),
  default: z.union([z.string(), z.number(), z.boolean()]).optional().describe('used when the argument is not given'),
  enum: z.array(z.union([z.string(), z.number(), z.boolean()])).min(1).optional().describe('the only values allowed'),
  description: z.string().optional(),
});
export type PlanArgDecl = z.output<typeof planArgSchema>;

export const planSchema = z.strictObject({
  strategy: strategy.default('serial'),
  /** The arguments the plan takes; a plan without `args` takes none. */
  args: z.array(planArgSchema).optional().describe('the arguments the plan takes (plan.args in templates); a plan without args takes none'),
  phases: z.array(phaseSchema).min(1),
});
export type PlanDecl = z.output<typeof planSchema>;

const scalar = z.union([z.string(), z.number(), z.boolean()]);
export const readinessSchema = z.strictObject({
  apiVersion: z.string().min(1),
  kind: z.string().min(1),
  readyCondition: z.string().optional(),
  failedConditions: z.array(z.string()).optional(),
  field: z.strictObject({ path: z.string().min(1), ready: z.array(scalar).min(1), failed: z.array(scalar).optional() }).optional(),
});

/**
 * What the agent does about a pod of the instance that stays not ready (docs/recovery.md): restart it
 * after `transientTimeout`, replace it (new claims, possibly another node) or run a plan after
 * `permanentTimeout`, within the limits.
 */
export const recoverySchema = z.strictObject({
  transientTimeout: duration.optional().describe('not ready longer than this: the pod is restarted (default 5m; absent with permanentTimeout only: never restarted)'),
  permanentTimeout: duration.optional().describe('not ready longer than this: the permanent action runs (default: none)'),
  permanent: z.enum(['replace', 'plan']).default('replace').describe('replace: the pod and its claims are deleted so it comes back on new storage; plan: the framework plan `plan` runs with POD=<pod>'),
  plan: z.string().min(1).optional().describe('with permanent: plan, the plan to run (default recovery)'),
  limits: z
    .strictObject({
      podInterval: duration.optional().describe('at least this long between two actions on one pod (default 10m)'),
      maxActionsPerHour: z.number().int().min(1).max(1000).optional().describe('actions on the instance per hour at most (default 6)'),
      maxPods: z.number().int().min(1).max(100).optional().describe('pods acted on in one recovery run (default 1: never more than one member of a quorum)'),
    })
    .optional(),
});
export type RecoveryDecl = z.output<typeof recoverySchema>;

/** What happens to a replica removed by a scale-down (docs/recovery.md): its claims kept or deleted, a plan per removed pod. */
export const decommissionSchema = z.strictObject({
  volumes: z.enum(['keep', 'delete']).default('keep').describe('the removed replica\'s PersistentVolumeClaims: kept (default) or deleted once the scale-down completed'),
  plan: z.string().min(1).optional().describe('a plan run once per removed pod (POD=<pod>) before its claims are handled'),
});
export type DecommissionDecl = z.output<typeof decommissionSchema>;

export const frameworkSchema = z
  .strictObject({
    $schema: schemaRef,
    apiVersion: z.literal(API_VERSION),
    kind: z.literal('Framework'),
    name: dnsLabel,
    version: semver,
    appVersion: z.string().default(''),
    description: z.string().optional(),
    url: z.string().optional(),
    keywords: z.array(z.string()).optional(),
    maintainers: z.array(z.strictObject({ name: z.string(), email: z.string().optional(), url: z.string().optional() })).optional(),
    namespaceManifest: z.string().optional().describe('template that renders the instance Namespace; the only place Namespace objects may come from'),
    tasks: z.array(taskSchema).default([]),
    plans: z.record(z.string().regex(/^[a-z0-9][a-z0-9-]*$/, 'plan names are lowercase words joined by "-"'), planSchema),
    readiness: z.array(readinessSchema).optional(),
    recovery: recoverySchema.optional().describe('automatic recovery of pods that stay not ready (docs/recovery.md)'),
    decommission: decommissionSchema.optional().describe('what a scale-down does with the removed replicas (docs/recovery.md)'),
  })
  .describe('Baton framework.yaml');
export type FrameworkDecl = z.output<typeof frameworkSchema>;

export const scheduleSchema = z.strictObject({
  plan: z.string().min(1),
  cron: z.string().min(1),
  timezone: z.string().optional(),
  args: z.record(z.string(), z.string()).optional(),
});
export type ScheduleDecl = z.output<typeof scheduleSchema>;

/** How the agent keeps an instance at its desired state (docs/drift.md); in baton.yaml for every instance, in an instance file for it alone. */
export const syncSettingsSchema = z
  .strictObject({
    driftInterval: duration.optional().describe('how often drift and health are checked (default 5m)'),
    selfHeal: z.enum(['repair', 'report', 'ignore']).optional().describe('what drift detection does about drift: repair it (default), only report it, or not look'),
    retry: z
      .strictObject({
        initial: duration.optional().describe('delay before the first retry of a failed desired state (default 1m)'),
        max: duration.optional().describe('the delay doubles per failure up to this (default 1h)'),
      })
      .optional(),
  })
  .describe('drift detection, self-heal and retries of a failed desired state');
export type SyncSettingsDecl = z.output<typeof syncSettingsSchema>;
export const valuesFromSchema = z
  .strictObject({
    kind: z.enum(['Secret', 'ConfigMap']),
    name: z.string().min(1),
    /** The entry to read; without it every entry is a parameter named by its key. */
    key: z.string().min(1).optional(),
    /** With `key`: the entry's text is this parameter's value; without: the entry holds a YAML map of values. */
    param: z.string().min(1).optional(),
    optional: z.boolean().optional(),
  })
  .refine((v) => v.param === undefined || v.key !== undefined, { message: '"param" needs "key" (the entry holding its value)', path: ['param'] });
export type ValuesFromDecl = z.output<typeof valuesFromSchema>;

/** Another instance: by name in the same namespace, or `namespace` too. */
export const dependencySchema = z.strictObject({ name: dnsLabel, namespace: dnsLabel.optional() });
export type DependencyDecl = z.output<typeof dependencySchema>;

export const instanceSchema = z
  .strictObject({
    $schema: schemaRef,
    apiVersion: z.literal(API_VERSION),
    kind: z.literal('Instance'),
    framework: dnsLabel,
    version: semver,
    params: z.record(z.string(), z.unknown()).default({}),
    /** Repository files holding parameter values (may be SOPS-encrypted), merged before `valuesFrom` and `params`. */
    valuesFiles: z.array(z.string().min(1)).default([]),
    /** Secrets and ConfigMaps in the instance's namespace holding parameter values, read at render time. */
    valuesFrom: z.array(valuesFromSchema).default([]),
    schedules: z.array(scheduleSchema).default([]),
    sync: syncSettingsSchema.optional(),
    /** Instances whose desired state must be applied and healthy before a plan of this one runs. */
    dependsOn: z.array(dependencySchema).default([]),
    /** Suspended: nothing is applied or repaired and schedules hold until it is removed or false (docs/operations.md). */
    suspend: z.boolean().optional(),
    cluster: dnsLabel.optional().describe("the cluster this instance is deployed to: a name from baton.yaml `clusters` (default: the agent's own cluster)"),
  })
  .describe('Baton instance file: instances/<namespace>/<instance>.yaml');
export type InstanceDecl = z.output<typeof instanceSchema>;

/** A kind as `group/Kind` (`apps/Deployment`), `Kind` for the core group, `group/*` or `*`. */
const kindPattern = z.string().regex(/^(\*|[A-Za-z0-9.-]+\/(\*|[A-Za-z][A-Za-z0-9]*)|[A-Z][A-Za-z0-9]*)$/, 'must be Kind (core group), group/Kind, group/* or *');
export const tenantSchema = z.strictObject({
  name: dnsLabel,
  // Instance files of this tenant: globs over repository paths, e.g. instances/team-a-*/*.yaml.
  instances: z.array(z.string().min(1)).min(1),
  /** Frameworks its instances may use, by name; `*` allows all. */
  frameworks: z.array(z.string().min(1)).default(['*']),
  /** Namespaces its instances may target (globs); default: none beyond the ones its instance paths name. */
  namespaces: z.array(z.string().min(1)).min(1),
  // Namespaced kinds its plans may create (Deployment, apps/*, *); default: the built-ins a workload needs.
  kinds: z.array(kindPattern).optional(),
  /** Cluster-scoped kinds it may create (refused unless listed here). */
  clusterKinds: z.array(kindPattern).default([]),
  /** The agent acts for this tenant as `system:serviceaccount:<namespace>:<name>`. */
  serviceAccount: z.strictObject({ namespace: dnsLabel, name: dnsLabel }).optional(),
});
export type TenantDecl = z.output<typeof tenantSchema>;

/** A credential: from the agent's environment or a key of a Secret in the agent's namespace. */
const credentialSchema = z.union([
  z.strictObject({ env: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name') }),
  z.strictObject({ secret: z.strictObject({ name: z.string().min(1), key: z.string().min(1) }) }),
]);
export type CredentialDecl = z.output<typeof credentialSchema>;

export const notifyEventNames = ['plan-failed', 'refused', 'plan-completed', 'drift-repaired', 'recovery-acted'] as const;
const notificationBase = {
  name: dnsLabel,
  events: z.array(z.enum(notifyEventNames)).min(1).default(['plan-failed', 'refused']),
  /** Only instances of these tenants (default: all). */
  tenants: z.array(dnsLabel).optional(),
  /** At most this many deliveries per minute (default 30). */
  perMinute: z.number().int().min(1).max(6000).optional(),
};
const httpsUrl = z.string().regex(/^https?:\/\/\S+$/, 'must be an http(s) URL');
export const notificationSchema = z.discriminatedUnion('type', [
  z.strictObject({ ...notificationBase, type: z.literal('webhook'), url: z.union([httpsUrl, credentialSchema]), secret: credentialSchema }),
  z.strictObject({ ...notificationBase, type: z.literal('slack'), url: credentialSchema }),
  z.strictObject({
    ...notificationBase,
    type: z.literal('github'),
    repository: z.string().regex(/^[\w.-]+\/[\w.-]+$/, 'must be OWNER/REPO'),
    token: credentialSchema,
    apiUrl: httpsUrl.optional(),
    checkRuns: z.boolean().optional(),
  }),
  z.strictObject({ ...notificationBase, type: z.literal('gitlab'), project: z.string().min(1), token: credentialSchema, url: httpsUrl.optional() }),
]);
export type NotificationDecl = z.output<typeof notificationSchema>;

/**
 * A cluster instances may target (docs/clusters.md): a kubeconfig file on the agent's machine and/or a
 * context in it, or a kubeconfig kept in a Secret of the agent's own cluster (in-cluster agents).
 */
export const clusterSchema = z
  .strictObject({
    name: dnsLabel,
    kubeconfig: z.string().min(1).optional().describe("a kubeconfig file on the agent's machine (absolute, or relative to the agent's working directory); default: the agent's own kubeconfig"),
    context: z.string().min(1).optional().describe("a context of that kubeconfig (default: its current-context)"),
    secret: z
      .strictObject({ namespace: dnsLabel, name: dnsLabel, key: z.string().min(1).default('kubeconfig') })
      .optional()
      .describe("a Secret in the agent's own cluster holding a kubeconfig under `key` (default `kubeconfig`)"),
  })
  .refine((c) => c.kubeconfig !== undefined || c.context !== undefined || c.secret !== undefined, { message: 'a cluster needs `kubeconfig`, `context` or `secret`' })
  .refine((c) => c.secret === undefined || c.kubeconfig === undefined, { message: '`secret` and `kubeconfig` are two sources of the kubeconfig: give one', path: ['secret'] });
export type ClusterDecl = z.output<typeof clusterSchema>;

export const repositorySchema = z
  .strictObject({
    $schema: schemaRef,
    apiVersion: z.literal(API_VERSION).optional(),
    kind: z.literal('Repository').optional(),
    agent: z
      .strictObject({
        interval: duration.optional(),
        statusBranch: z.string().optional(),
        author: z.strictObject({ name: z.string().optional(), email: z.string().optional() }).optional(),
        concurrency: z.number().int().min(1).optional(),
      })
      .optional(),
    defaults: z.strictObject({ stepTimeout: duration.optional() }).optional(),
    sync: syncSettingsSchema.optional(),
    tenants: z.array(tenantSchema).optional().describe('who may do what: instance paths, frameworks, namespaces, kinds and the ServiceAccount the agent impersonates'),
    notifications: z.array(notificationSchema).optional().describe('where plan results are reported: a signed webhook, Slack, GitHub or GitLab'),
    clusters: z
      .array(clusterSchema)
      .optional()
      .refine((list) => new Set((list ?? []).map((c) => c.name)).size === (list ?? []).length, { message: 'cluster names must be unique' })
      .describe("clusters instances may target by name (`cluster:` in an instance file); instances without one go to the agent's own cluster"),
  })
  .describe('Baton baton.yaml: repository settings');
export type RepositoryDecl = z.output<typeof repositorySchema>;

/**
 * Operator requests, `requests/<namespace>/<instance>.yaml` (docs/operations.md, "Requests through Git").
 * The file holds the instance's recent requests, oldest first; each has a unique id and the agent
 * carries out each id once. `action` says what is asked; which other fields an action needs is in
 * REQUEST_FIELDS (one table: add an action there and in REQUEST_ACTIONS, then give it a handler).
 * The single-request form `kind: PlanRequest` (what `baton plan trigger` wrote before) still reads as
 * one `trigger` request.
 */
export const REQUEST_ACTIONS = ['trigger', 'pause', 'resume', 'stop', 'retry', 'restart', 'force-complete', 'continue', 'pod-restart', 'pod-replace'] as const;
export type RequestAction = (typeof REQUEST_ACTIONS)[number];
export type RequestField = 'plan' | 'phase' | 'step' | 'pod' | 'reason' | 'args';

/** Per action: the fields it requires and the ones it accepts beyond them (id, action, requestedBy/At always). */
export const REQUEST_FIELDS: Record<RequestAction, { required: readonly RequestField[]; optional: readonly RequestField[] }> = {
  trigger: { required: ['plan'], optional: ['args', 'reason'] },
  pause: { required: [], optional: ['plan', 'reason'] },
  resume: { required: [], optional: ['plan', 'reason'] },
  stop: { required: [], optional: ['plan', 'reason'] },
  retry: { required: [], optional: ['plan', 'reason'] },
  restart: { required: [], optional: ['plan', 'phase', 'step', 'reason'] },
  'force-complete': { required: ['phase', 'step', 'reason'], optional: ['plan'] },
  continue: { required: [], optional: ['plan', 'reason'] },
  // Pod actions (docs/recovery.md): carried out by src/recovery/ as runs of `pod-restart` / `pod-replace`.
  'pod-restart': { required: ['pod'], optional: ['reason'] },
  'pod-replace': { required: ['pod'], optional: ['reason'] },
};

const requestId = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/, 'must be 1-63 letters, digits, ".", "_" or "-"');

export const requestItemSchema = z
  .strictObject({
    id: requestId,
    action: z.enum(REQUEST_ACTIONS),
    /** The plan concerned (trigger: the plan to run; control: default the instance's active plan). */
    plan: z.string().min(1).optional(),
    phase: z.string().min(1).optional(),
    step: z.string().min(1).optional(),
    /** A pod of the instance (pod actions). */
    pod: z.string().min(1).optional(),
    /** One-shot plan arguments (trigger). */
    args: z.record(z.string(), z.string()).optional(),
    /** Why: recorded in status, history and Events with who asked (required by force-complete). */
    reason: z.string().min(1).max(1000).optional(),
    requestedBy: z.string().optional(),
    requestedAt: z.string().optional(),
  })
  .superRefine((req, ctx) => {
    const spec = REQUEST_FIELDS[req.action];
    for (const field of spec.required) {
      if (req[field] === undefined) ctx.addIssue({ code: 'custom', path: [field], message: `action ${req.action} requires ${field}` });
    }
    const allowed = new Set<string>([...spec.required, ...spec.optional]);
    for (const field of ['plan', 'phase', 'step', 'pod', 'reason', 'args'] as const) {
      if (req[field] !== undefined && !allowed.has(field)) ctx.addIssue({ code: 'custom', path: [field], message: `action ${req.action} takes no ${field} (it takes ${[...allowed].join(', ') || 'no other field'})` });
    }
    if (req.step !== undefined && req.phase === undefined) ctx.addIssue({ code: 'custom', path: ['step'], message: 'a step is named within its phase: give phase too' });
  });
export type RequestItemDecl = z.output<typeof requestItemSchema>;

/** The legacy single request (`baton plan trigger` before operator requests): one trigger. */
const planRequestSchema = z.strictObject({
  apiVersion: z.literal(API_VERSION),
  kind: z.literal('PlanRequest'),
  id: z.string().min(1),
  plan: z.string().min(1),
  args: z.record(z.string(), z.string()).default({}),
  reason: z.string().min(1).max(1000).optional(),
  requestedAt: z.string().optional(),
  requestedBy: z.string().optional(),
});

export const requestSchema = z
  .discriminatedUnion('kind', [
    planRequestSchema,
    z.strictObject({
      apiVersion: z.literal(API_VERSION),
      kind: z.literal('Requests'),
      requests: z.array(requestItemSchema).min(1).max(100),
    }),
  ])
  .superRefine((doc, ctx) => {
    if (doc.kind !== 'Requests') return;
    const seen = new Map<string, number>();
    doc.requests.forEach((r, i) => {
      const first = seen.get(r.id);
      if (first !== undefined) ctx.addIssue({ code: 'custom', path: ['requests', i, 'id'], message: `id ${r.id} is used twice (also requests[${first}]): every request needs its own id` });
      else seen.set(r.id, i);
    });
  })
  .describe('Baton operator requests: requests/<namespace>/<instance>.yaml');
export type RequestDecl = z.output<typeof requestSchema>;

/** Every file kind with its schema, for the JSON Schema generator and the staleness test. */
const testObjectRef = z.strictObject({ apiVersion: z.string().min(1), kind: z.string().min(1), name: z.string().min(1) });

export const testStepSchema = z.strictObject({
  name: z.string().min(1).optional(),
  /** The instance's values from this step on (absent: unchanged). */
  params: z.record(z.string(), z.unknown()).optional(),
  /** The framework version the instance uses from this step on (default: the version the case belongs to). */
  version: semver.optional(),
  /** Run this plan (a one-shot request); absent: the plan the selection rules choose. */
  plan: z.string().min(1).optional(),
  args: z.record(z.string(), z.string()).optional(),
  /** Remove the instance (runs `cleanup`, then deletes what it owns). */
  remove: z.literal(true).optional(),
  expect: z.enum(['COMPLETE', 'FATAL_ERROR', 'REFUSED', 'NOTHING', 'REMOVED', 'INVALID']).default('COMPLETE'),
  /** Objects that must exist, matched partially: every field given must have the given value. */
  assert: z.array(z.record(z.string(), z.unknown())).default([]),
  /** Objects that must not exist. */
  absent: z.array(testObjectRef).default([]),
});

export const testCaseSchema = z
  .strictObject({
    $schema: schemaRef,
    name: z.string().min(1).optional(),
    /** Default `test`. */
    instance: dnsLabel.default('test'),
    /** Default `baton-test-<file name>`. */
    namespace: dnsLabel.optional(),
    params: z.record(z.string(), z.unknown()).default({}),
    steps: z.array(testStepSchema).min(1),
  })
  .describe('Baton framework test case: frameworks/<name>/<version>/tests/<case>.yaml');
export type TestCaseDecl = z.output<typeof testCaseSchema>;
export type TestStepDecl = z.output<typeof testStepSchema>;

export const fileSchemas = {
  framework: frameworkSchema,
  params: paramsFileSchema,
  instance: instanceSchema,
  repository: repositorySchema,
  'test-case': testCaseSchema,
} as const;
