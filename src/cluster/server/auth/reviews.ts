/**
 * The review kinds, answered at once and never stored, as kube-apiserver does: access reviews
 * (`kubectl auth can-i`, `--list`), SelfSubjectReview (`kubectl auth whoami`), TokenReview, and
 * TokenRequest (`kubectl create token`, the `serviceaccounts/<name>/token` subresource).
 */
import type { KubeObject } from '../../../kube/object.js';
import { isRecord } from '../../../kube/object.js';
import { badRequest, notFound } from '../../store/errors.js';
import type { Store } from '../../store/store.js';
import type { Authenticator, UserInfo } from './identity.js';
import { ISSUER } from './identity.js';
import { type PolicyRule, type RequestAttributes, isAllowed, rulesFor } from './rbac.js';

export interface ReviewContext {
  store: Store;
  user: UserInfo;
  auth: Authenticator;
  /** Whether RBAC decides (off: everyone may do everything). */
  rbac: boolean;
  /** The namespace of the URL (LocalSubjectAccessReview, TokenRequest). */
  namespace: string | undefined;
}

type Obj = Record<string, unknown>;
const asObj = (v: unknown): Obj => (isRecord(v) ? v : {});
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

function attributesOf(spec: Obj): RequestAttributes {
  const r = asObj(spec.resourceAttributes);
  const n = asObj(spec.nonResourceAttributes);
  if (isRecord(spec.nonResourceAttributes)) return { kind: 'nonResource', verb: str(n.verb), path: str(n.path) };
  if (!isRecord(spec.resourceAttributes)) throw badRequest('spec: Invalid value: resourceAttributes or nonResourceAttributes is required');
  const a: RequestAttributes = { kind: 'resource', verb: str(r.verb), group: str(r.group), resource: str(r.resource) };
  if (str(r.subresource) !== '') a.subresource = str(r.subresource);
  if (str(r.namespace) !== '') a.namespace = str(r.namespace);
  if (str(r.name) !== '') a.name = str(r.name);
  return a;
}

function decide(ctx: ReviewContext, user: UserInfo, spec: Obj): Obj {
  const allowed = !ctx.rbac || isAllowed(ctx.store, user, attributesOf(spec));
  return allowed ? { allowed: true, reason: ctx.rbac ? 'RBAC: allowed' : '' } : { allowed: false };
}

function rulesReview(ctx: ReviewContext, namespace: string): Obj {
  const all: PolicyRule[] = !ctx.rbac || ctx.user.groups.includes('system:masters')
    ? [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }, { verbs: ['*'], nonResourceURLs: ['*'] }]
    : rulesFor(ctx.store, ctx.user, namespace);
  const resourceRules = all.filter((r) => r.resources !== undefined).map((r) => ({ verbs: r.verbs, apiGroups: r.apiGroups ?? [], resources: r.resources ?? [], ...(r.resourceNames ? { resourceNames: r.resourceNames } : {}) }));
  const nonResourceRules = all.filter((r) => r.nonResourceURLs !== undefined).map((r) => ({ verbs: r.verbs, nonResourceURLs: r.nonResourceURLs ?? [] }));
  return { resourceRules, nonResourceRules, incomplete: false };
}

function userOfSpec(spec: Obj): UserInfo {
  return { username: str(spec.user), groups: Array.isArray(spec.groups) ? spec.groups.filter((g): g is string => typeof g === 'string') : [], ...(str(spec.uid) !== '' ? { uid: str(spec.uid) } : {}) };
}

/** The answer to a create of a review kind. */
export async function review(kind: string, body: Obj, ctx: ReviewContext): Promise<KubeObject> {
  const spec = asObj(body.spec);
  let status: Obj;
  switch (kind) {
    case 'SelfSubjectAccessReview':
      status = decide(ctx, ctx.user, spec);
      break;
    case 'SubjectAccessReview':
      status = decide(ctx, userOfSpec(spec), spec);
      break;
    case 'LocalSubjectAccessReview': {
      const ns = str(asObj(spec.resourceAttributes).namespace);
      if (ns !== '' && ns !== ctx.namespace) throw badRequest(`spec.resourceAttributes.namespace: Invalid value: "${ns}": must match metadata.namespace`);
      status = decide(ctx, userOfSpec(spec), { ...spec, resourceAttributes: { ...asObj(spec.resourceAttributes), namespace: ctx.namespace } });
      break;
    }
    case 'SelfSubjectRulesReview':
      status = rulesReview(ctx, str(spec.namespace));
      break;
    case 'SelfSubjectReview':
      status = { userInfo: ctx.user };
      break;
    case 'TokenReview': {
      const user = await ctx.auth.authenticate(str(spec.token));
      status = user ? { authenticated: true, user, audiences: [ISSUER] } : { authenticated: false, error: 'invalid bearer token' };
      break;
    }
    default:
      throw badRequest(`${kind} is not a review kind`);
  }
  const { status: _ignored, ...rest } = body;
  return { ...rest, apiVersion: str(body.apiVersion), kind, metadata: { ...asObj(body.metadata), creationTimestamp: null } as unknown as KubeObject['metadata'], spec, status };
}

/** POST serviceaccounts/<name>/token: a signed token for an existing ServiceAccount. */
export async function tokenRequest(name: string, body: Obj, ctx: ReviewContext): Promise<KubeObject> {
  const type = ctx.store.registry.lookup('', 'v1', 'serviceaccounts');
  const namespace = ctx.namespace ?? 'default';
  if (!type) throw notFound({ group: '', resource: 'serviceaccounts' }, name);
  const sa = ctx.store.get(type, namespace, name);
  const spec = asObj(body.spec);
  const requested = typeof spec.expirationSeconds === 'number' ? spec.expirationSeconds : 3600;
  if (requested < 600) throw badRequest(`spec.expirationSeconds: Invalid value: ${requested}: may not specify a duration less than 10 minutes`);
  const audiences = Array.isArray(spec.audiences) && spec.audiences.length > 0 ? spec.audiences.map(String) : [ISSUER];
  const now = new Date();
  const issued = await ctx.auth.issue({ namespace, name, uid: sa.metadata.uid ?? '' }, audiences, requested, now);
  return {
    kind: 'TokenRequest',
    apiVersion: 'authentication.k8s.io/v1',
    metadata: { name, namespace, creationTimestamp: now.toISOString().replace(/\.\d{3}Z$/, 'Z') },
    spec: { ...spec, audiences, expirationSeconds: requested },
    status: issued,
  };
}
