import { afterAll, describe, expect, it } from 'vitest';
import { loadInstanceSource } from '../../src/plans/instance-source.js';
import { MemoryTree, Renderer, RenderProblemsError, type Problem } from '../../src/render/index.js';
import { API, webFramework } from '../sync/fixtures.js';

const FILE = 'instances/shop/site.yaml';

function withSchedule(schedule: string): MemoryTree {
  return new MemoryTree({ ...webFramework(), [FILE]: `${API}\nkind: Instance\nframework: web\nversion: 1.0.0\nschedules:\n  - ${schedule}\n` });
}

async function problemsOf(load: Promise<unknown>): Promise<Problem[]> {
  const err: unknown = await load.then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(RenderProblemsError);
  return (err as RenderProblemsError).problems;
}

describe('loading an instance for the engine', () => {
  const renderer = new Renderer();
  afterAll(() => renderer.close());

  it.each([
    ['an unknown time zone', '{ plan: backup, cron: "0 3 * * *", timezone: Mars/Olympus }', 'SCHEDULE_TIMEZONE_INVALID', /Mars\/Olympus/],
    ['a cron expression that never fires', '{ plan: backup, cron: "0 0 31 2 *" }', 'SCHEDULE_NEVER_FIRES', /never fires/],
    ['a plan the framework does not define', '{ plan: restore, cron: "0 3 * * *" }', 'SCHEDULE_PLAN_UNKNOWN', /restore/],
  ])('GIVEN a schedule with %s WHEN loaded THEN it throws the located problem baton validate reports', async (_name, schedule, code, message) => {
    const problems = await problemsOf(loadInstanceSource(withSchedule(schedule), FILE, renderer));
    expect(problems).toEqual([expect.objectContaining({ code, severity: 'error', file: FILE, line: 6, message: expect.stringMatching(message) as unknown })]);
  });

  it('GIVEN a valid schedule WHEN loaded THEN the instance loads', async () => {
    const source = await loadInstanceSource(withSchedule('{ plan: backup, cron: "0 3 * * *", timezone: Europe/Berlin }'), FILE, renderer);
    expect(source.instance.decl.schedules).toHaveLength(1);
    expect(source.problems).toEqual([]);
  });

  it('GIVEN a bad schedule WHEN loaded for removal THEN it loads, so the instance can still be removed', async () => {
    const source = await loadInstanceSource(withSchedule('{ plan: backup, cron: "0 3 * * *", timezone: Mars/Olympus }'), FILE, renderer, { removed: true });
    expect(source.desired.removed).toBe(true);
  });
});
