/**
 * Bad baton.yaml `clusters` entries (docs/clusters.md) are located errors (file, line, field, what was
 * expected) in `baton validate` and in the agent's refusal of an instance (loadInstanceSource, which the
 * agent and `baton apply` run before anything is applied), never an unknown cluster blamed on the
 * instance file because `clusters` did not load.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { loadInstanceSource } from '../../src/plans/instance-source.js';
import { problemLocation, RenderProblemsError, validateRepository, type Problem } from '../../src/render/index.js';
import { miniRepo, testRenderer } from '../render/helpers.js';

const renderer = testRenderer();
afterAll(() => renderer.close());

const SITE = ['apiVersion: baton.dev/v1alpha1', 'kind: Instance', 'framework: web', 'version: 1.0.0', 'cluster: edge', ''].join('\n');

const line = (p: Problem): string => `${problemLocation(p)}: ${p.code}: ${p.message}`;

describe('bad baton.yaml clusters entries', () => {
  it.each([
    ['both kubeconfig and secret', ['  - name: edge', '    kubeconfig: /etc/baton/edge.kubeconfig', '    secret: { namespace: baton-system, name: edge }'], 'baton.yaml:6:13: SCHEMA_VALUE: "clusters.0.secret": `secret` and `kubeconfig` are two sources of the kubeconfig: give one'],
    ['no source at all', ['  - name: edge'], 'baton.yaml:4:5: SCHEMA_VALUE: "clusters.0": a cluster needs `kubeconfig`, `context` or `secret`'],
    ['an unknown field', ['  - name: edge', '    context: edge-eu-1', '    server: https://10.0.0.7:6443'], 'baton.yaml:6:5: SCHEMA_UNKNOWN_FIELD: unknown field "server"'],
    ['a secret without its name', ['  - name: edge', '    secret: { namespace: baton-system }'], 'baton.yaml:5:13: SCHEMA_REQUIRED: "clusters.0.secret.name" is required'],
    ['an empty context', ['  - name: edge', '    context: ""'], 'baton.yaml:5:14: SCHEMA_VALUE: "clusters.0.context"'],
    ['two clusters of one name', ['  - { name: edge, context: a }', '  - { name: edge, context: b }'], 'baton.yaml:4:3: SCHEMA_VALUE: "clusters": cluster names must be unique'],
  ])('GIVEN %s THEN validate and the agent report it located in baton.yaml, and no CLUSTER_UNKNOWN', async (_name, entry, expected) => {
    const tree = miniRepo({
      'baton.yaml': ['apiVersion: baton.dev/v1alpha1', 'kind: Repository', 'clusters:', ...entry, ''].join('\n'),
      'instances/apps/site.yaml': SITE,
    });
    const report = await validateRepository(tree, renderer);
    expect(report.ok).toBe(false);
    const lines = report.problems.map(line);
    expect(lines.some((l) => l.startsWith(expected)), lines.join('\n')).toBe(true);
    expect(lines.filter((l) => l.includes('CLUSTER_UNKNOWN'))).toEqual([]);

    const refused = await loadInstanceSource(tree, 'instances/apps/site.yaml', renderer).then(() => undefined, (err: unknown) => err);
    expect(refused).toBeInstanceOf(RenderProblemsError);
    const agentLines = (refused as RenderProblemsError).problems.map(line);
    expect(agentLines.some((l) => l.startsWith(expected)), agentLines.join('\n')).toBe(true);
    expect(agentLines.filter((l) => l.includes('CLUSTER_UNKNOWN'))).toEqual([]);
  });
});
