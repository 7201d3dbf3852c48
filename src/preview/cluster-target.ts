/**
 * The cluster each previewed instance targets (docs/clusters.md): at the head, or at the base for a
 * removal (its cleanup runs where its objects are), described without contacting a cluster. An
 * instance whose file names another cluster at the head than at the base is a move the agent refuses
 * (CLUSTER_MOVE): the preview says so before the merge, with the agent's words.
 */
import { clusterDecl, clusterMoveProblem, clusterServerChangeProblem } from '../clusters/rules.js';
import { describeTarget, type ClusterTarget, type LocalKubeconfig } from '../clusters/describe.js';
import { loadInstance, loadSettings, type FileTree, type Instance, type Problem } from '../render/index.js';
import type { ClusterDecl } from '../render/schemas.js';

export interface ClusterSide {
  /** Where the instance's plan (or removal) runs. */
  target: ClusterTarget;
  /** Its baton.yaml declaration (undefined: the agent's own cluster, or a name baton.yaml does not declare). */
  decl?: ClusterDecl;
  /** The base's target, when the head names another one. */
  from?: ClusterTarget;
  /** The CLUSTER_MOVE refusal, located in the head's file. */
  move?: Problem;
  /** The same cluster name, declared otherwise in baton.yaml at the head: where it pointed, and whether the server changed. */
  redeclared?: Redeclared;
  /** The CLUSTER_SERVER_CHANGED refusal (both servers known here and different). */
  serverChange?: Problem;
}

export interface Redeclared {
  from: ClusterTarget;
  /** `unknown`: a kubeconfig on this machine does not say both servers (a Secret, a file elsewhere). */
  server: 'same' | 'changed' | 'unknown';
}

interface Side {
  instance: Instance | undefined;
  decls: ClusterDecl[] | undefined;
}

async function sideOf(tree: FileTree, file: string, decls: () => Promise<ClusterDecl[] | undefined>): Promise<Side> {
  if ((await tree.read(file)) === undefined) return { instance: undefined, decls: undefined };
  const inst = await loadInstance(tree, file);
  return { instance: inst.ok ? inst.value : undefined, decls: await decls() };
}

/**
 * Per instance file: its target (and a move, or its cluster re-declared) between the base and the head
 * of a change; `redeclared`: the names whose baton.yaml declaration the change alters.
 */
export function clusterTargets(base: FileTree, head: FileTree, local: LocalKubeconfig): { of: (file: string) => Promise<ClusterSide>; redeclared: () => Promise<Set<string>> } {
  const memo = (tree: FileTree): (() => Promise<ClusterDecl[] | undefined>) => {
    let loaded: Promise<ClusterDecl[] | undefined> | undefined;
    return () => (loaded ??= loadSettings(tree).then((s) => (s.ok ? s.value.decl.clusters : undefined), () => undefined));
  };
  const baseDecls = memo(base);
  const headDecls = memo(head);
  const describe = async (side: Side): Promise<{ target: ClusterTarget; decl?: ClusterDecl }> => {
    const name = side.instance?.decl.cluster;
    const decl = clusterDecl(side.decls, name);
    // A name baton.yaml does not declare is refused elsewhere (CLUSTER_UNKNOWN); it is still the name shown.
    if (decl === undefined) return { target: name === undefined ? await describeTarget(undefined, local) : { name } };
    return { target: await describeTarget(decl, local), decl };
  };
  const redeclared = async (): Promise<Set<string>> => {
    const [was, is] = await Promise.all([baseDecls(), headDecls()]);
    const names = new Set<string>();
    for (const d of is ?? []) {
      const before = clusterDecl(was, d.name);
      if (before !== undefined && JSON.stringify(before) !== JSON.stringify(d)) names.add(d.name);
    }
    return names;
  };
  /** The same name declared otherwise: the agent goes on only if it still reaches the same server. */
  const redeclaredSide = async (b: Side, now: { target: ClusterTarget; decl?: ClusterDecl }, instance: string): Promise<ClusterSide> => {
    const name = now.decl?.name;
    const before = clusterDecl(b.decls, name);
    if (name === undefined || before === undefined || JSON.stringify(before) === JSON.stringify(now.decl)) return now;
    const from = await describeTarget(before, local);
    const to = now.target.server;
    if (from.server === undefined || to === undefined) return { ...now, redeclared: { from, server: 'unknown' } };
    if (from.server === to) return { ...now, redeclared: { from, server: 'same' } };
    return { ...now, redeclared: { from, server: 'changed' }, serverChange: clusterServerChangeProblem({ cluster: name, instance, from: from.server, to }) };
  };
  return {
    redeclared,
    of: async (file) => {
      const [b, h] = await Promise.all([sideOf(base, file, baseDecls), sideOf(head, file, headDecls)]);
      if (h.instance === undefined) return describe(b.instance !== undefined ? b : h);
      const now = await describe(h);
      const from = b.instance?.decl.cluster;
      if (b.instance === undefined) return now;
      if (from === h.instance.decl.cluster) return redeclaredSide(b, now, `${h.instance.namespace}/${h.instance.name}`);
      const inst = h.instance;
      const move = clusterMoveProblem({ file, from, to: inst.decl.cluster, locate: (path) => inst.source.locate(path) });
      return { ...now, from: (await describe(b)).target, move };
    },
  };
}
