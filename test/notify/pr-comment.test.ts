/** The preview comment on a pull request (GitHub) or merge request (GitLab): created once, then edited in place. */
import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PREVIEW_MARKER, postPreviewComment } from '../../src/notify/index.js';

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());

describe('preview comment', () => {
  it('GitHub: creates the comment, then edits the one carrying the marker', async () => {
    const target = { provider: 'github' as const, repository: 'acme/ops', pullRequest: 7, token: 'ghs_x' };
    let posted = '';
    nock('https://api.github.com').get('/repos/acme/ops/issues/7/comments').query(true).reply(200, [{ id: 1, body: 'looks good' }]);
    nock('https://api.github.com').post('/repos/acme/ops/issues/7/comments', (b: { body: string }) => { posted = b.body; return true; }).reply(201, {});
    expect(await postPreviewComment(target, '## Baton preview')).toBe('created');
    expect(posted).toBe(`${PREVIEW_MARKER}\n## Baton preview`);
    nock('https://api.github.com').get('/repos/acme/ops/issues/7/comments').query(true).reply(200, [{ id: 1, body: 'looks good' }, { id: 42, body: posted }]);
    const edit = nock('https://api.github.com').patch('/repos/acme/ops/issues/comments/42', { body: `${PREVIEW_MARKER}\n## v2` }).reply(200, {});
    expect(await postPreviewComment(target, '## v2')).toBe('updated');
    expect(edit.isDone()).toBe(true);
  });

  it('GitLab: posts a merge-request note; a 401 is an error that does not show the token', async () => {
    const target = { provider: 'gitlab' as const, project: '12', mergeRequest: 3, token: 'glpat-secret', url: 'https://git.example.com' };
    nock('https://git.example.com').get('/api/v4/projects/12/merge_requests/3/notes').query(true).reply(200, []);
    nock('https://git.example.com').post('/api/v4/projects/12/merge_requests/3/notes').reply(201, {});
    expect(await postPreviewComment(target, 'x')).toBe('created');
    nock('https://git.example.com').get('/api/v4/projects/12/merge_requests/3/notes').query(true).reply(401, { message: '401 Unauthorized glpat-secret' });
    const err = await postPreviewComment(target, 'x').catch((e: unknown) => e as Error);
    expect((err as Error).message).toContain('listing notes: HTTP 401');
    expect((err as Error).message).not.toContain('glpat-secret');
  });
});
