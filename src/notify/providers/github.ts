/**
 * GitHub: a commit status (`baton/<namespace>/<instance>`) on the commit whose desired state the plan
 * applied, and optionally a check run with the message (check runs need a GitHub App installation
 * token; with a personal access token GitHub answers 403 and the provider turns check runs off after
 * logging it once). Also the pull-request comment `baton preview` posts in CI (see pr-comment.ts).
 * Plain REST over fetch: three endpoints do not justify Octokit's dependency tree (which pulls a
 * package that requires Node 22).
 */
import { EVENT_TITLES, instanceLabel, isSuccess, type NotifyEvent } from '../events.js';
import { sendHttp, type HttpRequest } from '../http.js';
import type { Delivery } from './types.js';

export interface GitHubTarget {
  repository: string;
  token: string;
  apiUrl?: string;
  checkRuns?: boolean;
  timeoutMs?: number;
}

export const GITHUB_API = 'https://api.github.com';

export function githubHeaders(token: string): Record<string, string> {
  return {
    accept: 'application/vnd.github+json',
    authorization: `Bearer ${token}`,
    'x-github-api-version': '2022-11-28',
    'user-agent': 'baton',
    'content-type': 'application/json',
  };
}

/** GitHub's description limit is 140 characters. */
function short(text: string, max = 140): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

export function commitStatusRequest(target: GitHubTarget, event: NotifyEvent & { commit: string }): HttpRequest {
  const api = (target.apiUrl ?? GITHUB_API).replace(/\/$/, '');
  return {
    method: 'POST',
    url: `${api}/repos/${target.repository}/statuses/${event.commit}`,
    headers: githubHeaders(target.token),
    body: JSON.stringify({ state: isSuccess(event.type) ? 'success' : 'failure', context: `baton/${instanceLabel(event)}`, description: short(event.message) }),
  };
}

export function checkRunRequest(target: GitHubTarget, event: NotifyEvent & { commit: string }): HttpRequest {
  const api = (target.apiUrl ?? GITHUB_API).replace(/\/$/, '');
  const conclusion = isSuccess(event.type) ? 'success' : event.type === 'refused' ? 'action_required' : 'failure';
  return {
    method: 'POST',
    url: `${api}/repos/${target.repository}/check-runs`,
    headers: githubHeaders(target.token),
    body: JSON.stringify({
      name: `baton ${instanceLabel(event)}`,
      head_sha: event.commit,
      status: 'completed',
      conclusion,
      completed_at: event.at,
      output: { title: short(`${instanceLabel(event)}: ${EVENT_TITLES[event.type]}`), summary: event.message.slice(0, 60_000) },
    }),
  };
}

export class GitHubStatuses {
  private checkRunsOn: boolean;

  constructor(private readonly target: GitHubTarget, private readonly warn: (message: string) => void) {
    this.checkRunsOn = target.checkRuns === true;
  }

  deliveries(event: NotifyEvent): Delivery[] {
    if (event.commit === undefined) return [];
    const withCommit = { ...event, commit: event.commit };
    const out: Delivery[] = [{ what: 'commit status', send: () => sendHttp(commitStatusRequest(this.target, withCommit), this.target.timeoutMs) }];
    if (this.checkRunsOn) {
      out.push({
        what: 'check run',
        send: () => (this.checkRunsOn ? sendHttp(checkRunRequest(this.target, withCommit), this.target.timeoutMs) : Promise.resolve({ ok: true, status: 204, body: '' })),
        onFailure: (result) => {
          if (result.status === 403 && this.checkRunsOn) {
            this.checkRunsOn = false;
            this.warn('GitHub refused to create a check run (403): check runs need a GitHub App token; commit statuses continue, check runs are off');
          }
        },
      });
    }
    return out;
  }
}
