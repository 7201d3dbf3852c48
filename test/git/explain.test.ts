/** git's stderr rewritten into one sentence naming the repository (the raw text stays on the cause). */
import { describe, expect, it } from 'vitest';
import { explainGitFailure } from '../../src/git/explain.js';

describe('explainGitFailure', () => {
  it.each([
    ["fatal: '/tmp/x' does not appear to be a git repository\nfatal: Could not read from remote repository.\n\nPlease make sure you have the correct access rights", '/tmp/x is not a Git repository'],
    ["remote: Repository not found.\nfatal: repository 'https://h/o/r.git/' not found", 'https://h/o/r.git: no repository there (check the URL, and that your credentials may read it)'],
    ["fatal: Authentication failed for 'https://h/o/r.git/'", 'https://h/o/r.git: access denied'],
    ['git@h: Permission denied (publickey).\nfatal: Could not read from remote repository.', 'https://h/o/r.git: access denied'],
    ["fatal: unable to access 'https://nohost/r.git/': Could not resolve host: nohost", 'https://h/o/r.git: the host name does not resolve'],
    ["fatal: unable to access 'https://127.0.0.1:1/x.git/': Failed to connect to 127.0.0.1 port 1 after 0 ms: Couldn't connect to server", 'https://h/o/r.git: cannot connect to the server (is it up and reachable?)'],
    ['fatal: couldn\'t find remote ref refs/heads/trunk', 'https://h/o/r.git has no branch trunk'],
    ['fatal: something new and strange.\nhint: more', 'https://h/o/r.git: something new and strange'],
  ])('%j', (stderr, sentence) => {
    const where = stderr.startsWith("fatal: '/tmp/x'") ? '/tmp/x' : 'https://h/o/r.git';
    const said = explainGitFailure(where, stderr);
    expect(said.startsWith(sentence)).toBe(true);
    expect(said).not.toContain('\n');
  });
});
