/**
 * The cluster each previewed instance targets (docs/clusters.md): at the head, or at the base for a
 * removal (its cleanup runs where its objects are), described without contacting a cluster. An
 * instance whose file names another cluster at the head than at the base is a move the agent refuses
 * (CLUSTER_MOVE): the preview says so before the merge, with the agent's words.
 */
import { clusterDecl, clusterMoveProblem } from '../clusters/rules.js';
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

/** Per instance file: its target (and a move) between the base and the head of a change. */
export function clusterTargets(base: FileTree, head: FileTree, local: LocalKubeconfig): { of: (file: string) => Promise<ClusterSide> } {
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
  return {
    of: async (file) => {
      const [b, h] = await Promise.all([sideOf(base, file, baseDecls), sideOf(head, file, headDecls)]);
      if (h.instance === undefined) return describe(b.instance !== undefined ? b : h);
      const now = await describe(h);
      const from = b.instance?.decl.cluster;
      if (b.instance === undefined || from === h.instance.decl.cluster) return now;
      const inst = h.instance;
      const move = clusterMoveProblem({ file, from, to: inst.decl.cluster, locate: (path) => inst.source.locate(path) });
      return { ...now, from: (await describe(b)).target, move };
    },
  };
}
