// Value flags of the commands that talk to a daemon (kept apart so main.ts's parser loads nothing).
export const REMOTE_VALUE_FLAGS: readonly string[] = ['remote', 'token', 'priority', 'request-id', 'timeout-ms', 'deadline-ms', 'key-id', 'protocol', 'tls-ca', 'tls-cert', 'tls-key'];
