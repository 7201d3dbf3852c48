/**
 * The pull-request (GitHub) or merge-request (GitLab) comment `baton preview --comment` posts in CI:
 * one comment per pull request, found again by a hidden marker and edited in place on every push, so
 * the request keeps one current preview instead of a trail of stale ones.
 */
import { BatonError } from '../errors.js';
import { sendHttp, type DeliveryResult } from './http.js';
import { GITHUB_API, githubHeaders } from './providers/github.js';
import { GITLAB_URL } from './providers/gitlab.js';

export const PREVIEW_MARKER = '<!-- baton-preview -->';

export type PreviewCommentTarget =
  | { provider: 'github'; repository: string; pullRequest: number; token: string; apiUrl?: string }
  | { provider: 'gitlab'; project: string; mergeRequest: number; token: string; url?: string };

export class CommentError extends BatonError {
  constructor(message: string, status?: number) {
    super('PREVIEW_COMMENT_FAILED', message, { status });
  }
}

function check(result: DeliveryResult, what: string, token: string): string {
  if (result.ok) return result.body;
  throw new CommentError(`${what}: ${result.message.split(token).join('***')}`, result.status);
}

interface Found { id: number; body: string }

/** Creates or edits the preview comment; returns `created` or `updated`. */
export async function postPreviewComment(target: PreviewCommentTarget, markdown: string): Promise<'created' | 'updated'> {
  const body = `${PREVIEW_MARKER}\n${markdown}`;
  if (target.provider === 'github') {
    const api = (target.apiUrl ?? GITHUB_API).replace(/\/$/, '');
    const headers = githubHeaders(target.token);
    const base = `${api}/repos/${target.repository}/issues`;
    let existing: Found | undefined;
    for (let page = 1; page <= 10 && existing === undefined; page++) {
      const list = JSON.parse(check(await sendHttp({ method: 'GET', url: `${base}/${target.pullRequest}/comments?per_page=100&page=${page}`, headers }), 'listing comments', target.token)) as Found[];
      existing = list.find((c) => c.body.startsWith(PREVIEW_MARKER));
      if (list.length < 100) break;
    }
    if (existing) {
      check(await sendHttp({ method: 'PATCH', url: `${base}/comments/${existing.id}`, headers, body: JSON.stringify({ body }) }), 'editing the comment', target.token);
      return 'updated';
    }
    check(await sendHttp({ method: 'POST', url: `${base}/${target.pullRequest}/comments`, headers, body: JSON.stringify({ body }) }), 'posting the comment', target.token);
    return 'created';
  }
  const api = `${(target.url ?? GITLAB_URL).replace(/\/$/, '')}/api/v4/projects/${encodeURIComponent(target.project)}/merge_requests/${target.mergeRequest}/notes`;
  const headers = { 'private-token': target.token, 'content-type': 'application/json', 'user-agent': 'baton' };
  const notes = JSON.parse(check(await sendHttp({ method: 'GET', url: `${api}?per_page=100&sort=desc`, headers }), 'listing notes', target.token)) as Found[];
  const existing = notes.find((n) => n.body.startsWith(PREVIEW_MARKER));
  if (existing) {
    check(await sendHttp({ method: 'PUT', url: `${api}/${existing.id}`, headers, body: JSON.stringify({ body }) }), 'editing the note', target.token);
    return 'updated';
  }
  check(await sendHttp({ method: 'POST', url: api, headers, body: JSON.stringify({ body }) }), 'posting the note', target.token);
  return 'created';
}
