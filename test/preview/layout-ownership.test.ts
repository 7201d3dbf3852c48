/**
 * Issue #11 items 11-12 in `baton preview`: the change is judged by the same layout rules and the same
 * one-owner rule as validate and the agent.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { buildPreview } from '../../src/preview/preview.js';
import { MemoryTree, Renderer } from '../../src/render/index.js';
import { miniRepo } from '../render/helpers.js';

const renderer = new Renderer();
afterAll(() => renderer.close());
const INSTANCE = 'apiVersion: baton.dev/v1alpha1\nkind: Instance\nframework: web\nversion: 1.0.0\n';

function preview(base: MemoryTree, head: MemoryTree): ReturnType<typeof buildPreview> {
  return buildPreview({ base, head, baseRef: 'main', headRef: 'change', renderer, now: new Date('2026-01-01T00:00:00Z') });
}

describe('preview judges files and objects as the agent does', () => {
  it('GIVEN a change adding an instance that renders an object another instance owns THEN it is not acceptable, naming the owner', async () => {
    const fixed = { 'frameworks/web/1.0.0/templates/main.yaml.ejs': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: shared\ndata:\n  k: v\n' };
    const report = await preview(miniRepo(fixed), miniRepo({ ...fixed, 'instances/apps/twin.yaml': INSTANCE }));
    expect(report.acceptable).toBe(false);
    expect(report.problems).toContainEqual(expect.objectContaining({ code: 'OBJECT_OWNER_CONFLICT', file: 'instances/apps/twin.yaml', message: expect.stringContaining('instance apps/site') }));
  });

  it('GIVEN a change adding site.yml beside site.yaml THEN the instance is refused as the agent would, not previewed', async () => {
    const report = await preview(miniRepo(), miniRepo({ 'instances/apps/site.yml': INSTANCE }));
    expect(report.acceptable).toBe(false);
    expect(report.instances).toContainEqual(expect.objectContaining({ outcome: 'refused', code: 'INSTANCE_DUPLICATE' }));
  });

  it('GIVEN a change adding a file in a nested folder THEN it is reported, not ignored', async () => {
    const report = await preview(miniRepo(), miniRepo({ 'instances/apps/old/site.yaml': INSTANCE }));
    expect(report.problems).toContainEqual(expect.objectContaining({ code: 'INSTANCE_PATH', file: 'instances/apps/old/' }));
  });
});
