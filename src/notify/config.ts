/**
 * From baton.yaml `notifications` to providers: credentials are read from the agent's environment or
 * from a Secret in the agent's namespace (never from baton.yaml itself), once at start. A notification
 * whose credential is missing is left out with an error naming it; the others still work.
 */
import type { KubeClient } from '../kube/client.js';
import { isRecord } from '../kube/object.js';
import { BatonError, errorMessage } from '../errors.js';
import type { CredentialDecl, NotificationDecl } from '../render/schemas.js';
import type { NotifyLog } from './dispatcher.js';
import { GitHubStatuses } from './providers/github.js';
import { gitlabDeliveries } from './providers/gitlab.js';
import { slackDeliveries } from './providers/slack.js';
import type { Provider } from './providers/types.js';
import { webhookDeliveries } from './providers/webhook.js';

export const DEFAULT_PER_MINUTE = 30;

export interface CredentialSource {
  env: NodeJS.ProcessEnv;
  /** Reads Secrets named by `{secret: {name, key}}`; absent: such credentials are errors. */
  client?: KubeClient;
  /** The agent's namespace, where those Secrets live. */
  namespace: string;
}

export class NotifyConfigError extends BatonError {
  constructor(notification: string, message: string) {
    super('NOTIFY_CONFIG_INVALID', `baton.yaml notifications ${notification}: ${message}`, { notification });
  }
}

export async function resolveCredential(decl: CredentialDecl, source: CredentialSource, where: string): Promise<string> {
  if ('env' in decl) {
    const value = source.env[decl.env];
    if (value === undefined || value === '') throw new NotifyConfigError(where, `environment variable ${decl.env} is not set`);
    return value;
  }
  const { name, key } = decl.secret;
  if (source.client === undefined) throw new NotifyConfigError(where, `Secret ${source.namespace}/${name} cannot be read without a cluster`);
  let secret;
  try {
    secret = await source.client.get({ apiVersion: 'v1', kind: 'Secret', namespace: source.namespace, name });
  } catch (err) {
    throw new NotifyConfigError(where, `Secret ${source.namespace}/${name} could not be read: ${errorMessage(err)}`);
  }
  const data = secret && isRecord(secret.data) ? secret.data : undefined;
  const encoded = data?.[key];
  if (typeof encoded !== 'string') throw new NotifyConfigError(where, secret ? `Secret ${source.namespace}/${name} has no key ${key}` : `Secret ${source.namespace}/${name} does not exist`);
  return Buffer.from(encoded, 'base64').toString('utf8').trim();
}

async function urlOf(value: string | CredentialDecl, source: CredentialSource, where: string): Promise<string> {
  const url = typeof value === 'string' ? value : await resolveCredential(value, source, where);
  if (!/^https?:\/\/\S+$/.test(url)) throw new NotifyConfigError(where, 'the URL is not an http(s) URL');
  return url;
}

export async function buildProvider(decl: NotificationDecl, source: CredentialSource, warn: (message: string) => void): Promise<Provider> {
  const base = {
    name: decl.name,
    type: decl.type,
    events: new Set(decl.events),
    ...(decl.tenants ? { tenants: new Set(decl.tenants) } : {}),
    perMinute: decl.perMinute ?? DEFAULT_PER_MINUTE,
  };
  switch (decl.type) {
    case 'webhook': {
      const url = await urlOf(decl.url, source, decl.name);
      const secret = await resolveCredential(decl.secret, source, decl.name);
      return { ...base, secrets: [secret, ...(typeof decl.url === 'string' ? [] : [url])], deliveries: (e) => webhookDeliveries({ url, secret }, e) };
    }
    case 'slack': {
      const url = await urlOf(decl.url, source, decl.name);
      return { ...base, secrets: [url], deliveries: (e) => slackDeliveries(url, e) };
    }
    case 'github': {
      const token = await resolveCredential(decl.token, source, decl.name);
      const statuses = new GitHubStatuses({ repository: decl.repository, token, ...(decl.apiUrl ? { apiUrl: decl.apiUrl } : {}), ...(decl.checkRuns !== undefined ? { checkRuns: decl.checkRuns } : {}) }, (m) => warn(`notification ${decl.name}: ${m}`));
      return { ...base, secrets: [token], deliveries: (e) => statuses.deliveries(e) };
    }
    case 'gitlab': {
      const token = await resolveCredential(decl.token, source, decl.name);
      const target = { project: decl.project, token, ...(decl.url ? { url: decl.url } : {}) };
      return { ...base, secrets: [token], deliveries: (e) => gitlabDeliveries(target, e) };
    }
  }
}

/** Every notification that can be set up; the others are logged and left out. */
export async function buildProviders(decls: readonly NotificationDecl[], source: CredentialSource, log: NotifyLog): Promise<Provider[]> {
  const out: Provider[] = [];
  for (const decl of decls) {
    try {
      out.push(await buildProvider(decl, source, (m) => log('warn', m, { notification: decl.name })));
    } catch (err) {
      log('error', `${errorMessage(err)}; this notification is off`, { notification: decl.name });
    }
  }
  return out;
}
