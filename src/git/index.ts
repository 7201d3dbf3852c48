/** Git adapters: the agent's bare clone (transport via the git binary) and object access at a commit. */
export { GitMirror, trackingRef, type MirrorOptions } from './mirror.js';
export { ObjectStore, CommitTree, type GitFileTree, type TreeEntry } from './tree.js';
export { writeTreeWith, writeCommit, type Identity, type FileChanges, type CommitInput } from './write.js';
export { formatMessage, groupTrailers, parseTrailers, trailer, trailerLines, type Trailers } from './trailers.js';
export { readLog, type LogEntry, type LogQuery } from './log.js';
export { normaliseRemote, redactUrl, authEnv, type RemoteSpec, type RemoteAuth } from './remote.js';
export { GitRemoteRefusedError, GitTransportError, GitPushRejectedError, GitObjectError } from './errors.js';
