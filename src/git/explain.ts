/**
 * git's stderr, rewritten into one sentence that names the repository: git prints several `fatal:`
 * and `hint:` lines, often about access rights when the path is simply wrong. The raw text stays on
 * the error's cause for debugging.
 */
const RULES: { test: RegExp; say: (where: string, m: RegExpExecArray) => string }[] = [
  { test: /does not appear to be a git repository|not a git repository/i, say: (w) => `${w} is not a Git repository` },
  { test: /repository '[^']*' not found|Repository not found|returned error: 404|\b404\b/i, say: (w) => `${w}: no repository there (check the URL, and that your credentials may read it)` },
  { test: /Authentication failed|could not read Username|Permission denied|returned error: 40[13]|Host key verification failed/i, say: (w) => `${w}: access denied (check the credentials: $BATON_GIT_TOKEN, an SSH key, or the URL's user)` },
  { test: /Could not resolve host:? ?([^\s:']+)?/i, say: (w) => `${w}: the host name does not resolve` },
  { test: /Failed to connect|Couldn't connect|Connection refused|Connection timed out|Operation timed out/i, say: (w) => `${w}: cannot connect to the server (is it up and reachable?)` },
  { test: /couldn't find remote ref ([^\s]+)/i, say: (w, m) => `${w} has no ${(m[1] ?? 'such ref').replace(/^refs\/heads\//, 'branch ')}` },
  { test: /SSL certificate problem|server certificate verification failed/i, say: (w) => `${w}: the server's TLS certificate is not trusted` },
];

export function explainGitFailure(where: string, stderr: string): string {
  for (const rule of RULES) {
    const m = rule.test.exec(stderr);
    if (m) return rule.say(where, m);
  }
  const fatal = /^(?:fatal|error): (.+)$/m.exec(stderr)?.[1] ?? stderr.trim().split('\n')[0] ?? '';
  return `${where}: ${fatal.trim().replace(/[.:]$/, '')}`;
}
