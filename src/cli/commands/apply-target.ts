/**
 * The cluster `baton apply` (and `delete`, `plan check`, the plan control commands) acts on, as the
 * agent would (docs/clusters.md): the instance's `cluster:` resolved through the repository's baton.yaml
 * and connected with the agent's own code (src/clusters/); `--kubeconfig`/`--context` stand for the
 * agent's own kubeconfig and context (an instance without `cluster:`, a cluster naming only a context,
 * the cluster holding a kubeconfig Secret). `--cluster NAME` chooses a baton.yaml cluster for an instance
 * that names none; for one that names another cluster it is a usage error (the agent would apply it
 * there), so a person never puts an instance where the agent would not look for it.
 */
import { resolve } from 'node:path';
import { ClusterClient, clusterDecl, clusterNames, describeTarget, type ClusterTarget } from '../../clusters/index.js';
import { dependencyKey, instanceFileOf } from '../../compose/index.js';
import { createKubeClient } from '../../kube/http-client.js';
import type { KubeClient } from '../../kube/client.js';
import type { InstanceKey } from '../../plans/checkpoint.js';
import { loadInstance, loadSettings, RenderProblemsError, type FileTree, type Instance } from '../../render/index.js';
import type { ClusterDecl } from '../../render/schemas.js';
import { UsageError } from '../conventions.js';

export interface TargetFlags {
  kubeconfig?: string;
  context?: string;
  /** `--cluster NAME`: a baton.yaml cluster. */
  cluster?: string;
}

/** The clients of one command run: the instance's target, and those its dependencies are read in. */
export interface TargetClients {
  client: KubeClient;
  /** The baton.yaml cluster acted on (name, kubeconfig source, context, server); undefined for the own cluster. */
  target?: ClusterTarget;
  /** The client reading another instance's cluster (its dependencies); undefined: `client`'s cluster. */
  readerFor: (key: InstanceKey) => KubeClient | undefined;
  /** Looks up the dependencies' clusters before a gate reads them (readerFor is synchronous). */
  prepareReaders: (instance: Instance) => Promise<void>;
  close: () => void;
}

/**
 * Which baton.yaml cluster the command acts on (undefined: the own cluster). Throws UsageError when
 * --cluster contradicts the file or names no declared cluster; RenderProblemsError (located) for an
 * invalid baton.yaml. An instance naming an undeclared cluster is left to the instance's own checks
 * (CLUSTER_UNKNOWN, located in its file), which run before anything is applied.
 */
export async function targetDecl(tree: FileTree, file: string | undefined, flags: TargetFlags): Promise<ClusterDecl | undefined> {
  // No file (`baton plan status` of an instance not checked out here): only --cluster names a cluster.
  const inst = file === undefined ? undefined : await loadInstance(tree, file);
  const named = inst?.ok === true ? inst.value.decl.cluster : undefined;
  if (flags.cluster !== undefined && named !== undefined && flags.cluster !== named) {
    throw new UsageError(`--cluster ${flags.cluster}: ${file} says cluster: ${named}, where the agent applies it; drop --cluster (or pass --cluster ${named})`);
  }
  const name = flags.cluster ?? named;
  if (name === undefined) return undefined;
  const settings = await loadSettings(tree);
  if (!settings.ok) throw new RenderProblemsError(settings.problems);
  const decls = settings.value.decl.clusters;
  const decl = clusterDecl(decls, name);
  if (decl === undefined && flags.cluster !== undefined) {
    const names = clusterNames(decls);
    throw new UsageError(`--cluster ${flags.cluster}: baton.yaml declares ${names.length === 0 ? 'no clusters' : `clusters ${names.join(', ')}`}; expected one of them`);
  }
  return decl;
}

/** Connects to the target as the agent would; the own cluster only when something needs it. */
export async function connectTarget(decl: ClusterDecl | undefined, flags: TargetFlags, cwd: string, tree: FileTree): Promise<TargetClients> {
  const kubeconfigPath = flags.kubeconfig !== undefined ? resolve(cwd, flags.kubeconfig) : undefined;
  const ownOptions = { ...(kubeconfigPath !== undefined ? { kubeconfigPath } : {}), ...(flags.context !== undefined ? { context: flags.context } : {}) };
  let own: (KubeClient & { close(): void }) | undefined;
  const ownClient = async (): Promise<KubeClient> => (own ??= await createKubeClient(ownOptions));
  const others = new Map<string, ClusterClient>();
  const clientOf = (d: ClusterDecl): ClusterClient => {
    let c = others.get(d.name);
    if (c === undefined) others.set(d.name, (c = new ClusterClient(d, { own: ownClient, ...(kubeconfigPath !== undefined ? { kubeconfigPath } : {}), cwd })));
    return c;
  };
  const client = decl === undefined ? await ownClient() : clientOf(decl);
  const readers = new Map<string, ClusterDecl | undefined>();
  const target = decl === undefined ? undefined : await describeTarget(decl, { ...(kubeconfigPath !== undefined ? { kubeconfigPath } : {}), cwd });
  return {
    client,
    ...(target !== undefined ? { target } : {}),
    readerFor: (key) => {
      const d = readers.get(`${key.namespace}/${key.name}`);
      if (d === undefined) return own ?? client;
      return clientOf(d);
    },
    prepareReaders: async (instance) => {
      const settings = await loadSettings(tree);
      const decls = settings.ok ? settings.value.decl.clusters : undefined;
      for (const d of instance.decl.dependsOn) {
        const key = dependencyKey({ namespace: instance.namespace, name: instance.name }, d);
        const depFile = await instanceFileOf(tree, key);
        const dep = depFile === undefined ? undefined : await loadInstance(tree, depFile);
        const depDecl = dep?.ok === true ? clusterDecl(decls, dep.value.decl.cluster) : undefined;
        readers.set(`${key.namespace}/${key.name}`, depDecl);
        // A dependency on the own cluster is read there: connected now, as readerFor answers at once.
        if (depDecl === undefined) await ownClient();
      }
    },
    close: () => {
      for (const c of others.values()) c.close();
      own?.close();
    },
  };
}
