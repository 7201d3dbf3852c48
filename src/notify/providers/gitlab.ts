/** GitLab: a commit status (`baton/<namespace>/<instance>`) on the commit the plan applied. */
import { instanceLabel, isSuccess, type NotifyEvent } from '../events.js';
import { sendHttp, type HttpRequest } from '../http.js';
import type { Delivery } from './types.js';

export interface GitLabTarget {
  project: string;
  token: string;
  url?: string;
  timeoutMs?: number;
}

export const GITLAB_URL = 'https://gitlab.com';

export function gitlabStatusRequest(target: GitLabTarget, event: NotifyEvent & { commit: string }): HttpRequest {
  const base = (target.url ?? GITLAB_URL).replace(/\/$/, '');
  return {
    method: 'POST',
    url: `${base}/api/v4/projects/${encodeURIComponent(target.project)}/statuses/${event.commit}`,
    headers: { 'private-token': target.token, 'content-type': 'application/json', 'user-agent': 'baton' },
    body: JSON.stringify({ state: isSuccess(event.type) ? 'success' : 'failed', name: `baton/${instanceLabel(event)}`, description: event.message.slice(0, 255) }),
  };
}

export function gitlabDeliveries(target: GitLabTarget, event: NotifyEvent): Delivery[] {
  if (event.commit === undefined) return [];
  const withCommit = { ...event, commit: event.commit };
  return [{ what: 'commit status', send: () => sendHttp(gitlabStatusRequest(target, withCommit), target.timeoutMs) }];
}
