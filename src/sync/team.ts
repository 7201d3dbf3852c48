/**
 * What running the agent for a team adds to it (issue #19): age keys for SOPS-encrypted values (file,
 * environment, Secret), a client per tenant that impersonates the tenant's ServiceAccount, and the
 * notifications of baton.yaml, subscribed to the agent's outcomes. Kept apart from run.ts so the loop
 * stays about the loop.
 */
import { createKubeClient, type HttpKubeClient, type KubeClientOptions } from '../kube/http-client.js';
import type { KubeClient } from '../kube/client.js';
import { errorMessage } from '../errors.js';
import { Notifier } from '../notify/index.js';
import type { RepositoryDecl } from '../render/index.js';
import { AgeKeyring, loadAgeKeys } from '../secrets/index.js';
import { tenantOf } from '../tenancy/rules.js';
import type { AgentLog, AgentOptions } from './agent.js';
import { DEFAULT_LEASE_NAMESPACE } from './leader.js';
import type { AgentSettings } from './settings.js';
import type { InstanceKey } from './status-file.js';

export interface TeamSetup {
  agentOptions: Pick<AgentOptions, 'onInstanceOutcome' | 'clientFor' | 'valuesFor'>;
  close(): Promise<void>;
}

const fileOf = (key: InstanceKey): string => `instances/${key.namespace}/${key.name}.yaml`;

export async function teamSetup(settings: AgentSettings, decl: RepositoryDecl | undefined, client: KubeClient, clientOptions: KubeClientOptions, log: AgentLog): Promise<TeamSetup> {
  // Keys are loaded once at start; a key that cannot be read is logged and encrypted instances are refused (located) until a restart.
  let keys = new AgeKeyring();
  try {
    keys = await loadAgeKeys({ ...(settings.ageKeyFile ? { file: settings.ageKeyFile } : {}), ...(settings.ageKeySecret ? { secret: settings.ageKeySecret } : {}) }, process.env, client);
    if (keys.size > 0) log('info', `age keys loaded: ${keys.recipients.join(', ')} (${keys.sources.join(', ')})`);
  } catch (err) {
    log('error', `age keys could not be loaded: ${errorMessage(err)}; SOPS-encrypted instances are refused`);
  }

  const tenants = decl?.tenants;
  const clients = new Map<string, Promise<HttpKubeClient>>();
  const tenantClients = new Map<string, KubeClient>();
  for (const t of tenants ?? []) {
    if (!t.serviceAccount) continue;
    const user = `system:serviceaccount:${t.serviceAccount.namespace}:${t.serviceAccount.name}`;
    const c = createKubeClient({ ...clientOptions, impersonate: user });
    clients.set(t.name, c);
    tenantClients.set(t.name, await c);
  }
  const clientFor = (key: InstanceKey): KubeClient => {
    const match = tenantOf(tenants, fileOf(key));
    return (match.kind === 'tenant' ? tenantClients.get(match.tenant.name) : undefined) ?? client;
  };
  if (tenantClients.size > 0) log('info', `acting for tenants ${[...tenantClients.keys()].join(', ')} through their ServiceAccounts`);

  let notifier: Notifier | undefined;
  if ((decl?.notifications?.length ?? 0) > 0) {
    notifier = await Notifier.create(decl?.notifications ?? [], { env: process.env, client, namespace: settings.leaseNamespace ?? DEFAULT_LEASE_NAMESPACE }, {
      log: (level, message, fields) => log(level, message, fields ?? {}),
      tenantOf: (i) => {
        const m = tenantOf(tenants, fileOf(i));
        return m.kind === 'tenant' ? m.tenant.name : undefined;
      },
    });
  }
  return {
    agentOptions: {
      ...(tenantClients.size > 0 ? { clientFor } : {}),
      valuesFor: (key) => ({ keys, cluster: clientFor(key) }),
      ...(notifier ? { onInstanceOutcome: (r) => notifier.onOutcome({ instance: r.instance, commit: r.commit, outcome: r.outcome, at: r.at }) } : {}),
    },
    close: async () => {
      // Deliveries still queued get a few seconds, never the whole grace period.
      if (notifier && !(await notifier.drain(5000))) log('warn', 'notifications still queued at shutdown were dropped');
      for (const c of clients.values()) (await c).close();
    },
  };
}
