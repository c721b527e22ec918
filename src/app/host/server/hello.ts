// The first message a host-socket client sends: a hello this host can talk to, or the error that
// ends the connection (naming what was wrong with it).
import { HOST_PROTOCOL_VERSION } from '../../../protocol/hostFraming';
import { describeIssues, HelloSchema, type Hello, type HostErrorCode } from '../../../protocol/hostMessages';

export type HelloRefusal = {
  code: HostErrorCode;
  message: string;
  extra?: { protocol: number; hostVersion: string; pid: number; keepsAgents?: boolean };
};

/** The hello in `value`, or why it is none this host (Termio `hostVersion`) accepts. */
export function readHello(value: unknown, hostVersion: string, keepsAgents: boolean): { ok: true; hello: Hello } | ({ ok: false } & HelloRefusal) {
  const t = (value as { t?: unknown } | null)?.t;
  if (t !== 'hello') {
    return {
      ok: false,
      code: 'handshakeRequired',
      message: `the first message must be a hello, not ${typeof t === 'string' ? `a '${t.slice(0, 32)}'` : 'a message without t'}`,
    };
  }
  const hello = HelloSchema.safeParse(value);
  if (!hello.success) return { ok: false, code: 'handshakeRequired', message: `the first message must be a hello: ${describeIssues(hello.error, 'hello')}` };
  if (hello.data.protocol !== HOST_PROTOCOL_VERSION) {
    return {
      ok: false,
      code: 'versionMismatch',
      message: `this host (Termio ${hostVersion}) speaks protocol ${HOST_PROTOCOL_VERSION}; the client (${hello.data.client} ${hello.data.version}) speaks ${hello.data.protocol}`,
      extra: { protocol: HOST_PROTOCOL_VERSION, hostVersion, pid: process.pid, keepsAgents: keepsAgents ? true : undefined },
    };
  }
  return { ok: true, hello: hello.data };
}
