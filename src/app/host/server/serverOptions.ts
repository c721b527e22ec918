// What the host socket is built with: the services its connections answer from. Its
// own module so the server (socketServer.ts) and each connection (connection.ts) share it
// without importing one another.
import type { HostStatus } from '../../../protocol/hostMessages';
import type { SessionInfo } from '../../../protocol/sessionInfo';
import type { Logger } from '../../services/log';
import type { AppService } from './appService';
import type { Companion } from '../companion/companion';
import type { SessionVerbs } from '../control/controlVerbs';
import type { MachinesHub } from '../machines/hub';
import type { SessionRecord, SessionRegistry } from '../sessions/sessionRegistry';

export interface ServerOptions {
  socketPath: string;
  registry: SessionRegistry;
  logger: Logger;
  hostVersion: string;
  /** Said in the hello (src/app/services/hostId.ts); omitted: none. */
  hostId?: string;
  /** Sessions run on session holders: the hello (and a version mismatch) says agents survive a restart. */
  keepsAgents?: boolean;
  /** host.status: what only the host process knows (start time, log file, pid). */
  describe(): Omit<HostStatus, 'sessions' | 'clients' | 'clientList' | 'protocol' | 'socket'>;
  /** The session verbs (sessions.*, notify, ...): the same table the control socket answers through. */
  verbs: SessionVerbs;
  /** The one SessionInfo mapper. */
  sessionInfo(record: SessionRecord): SessionInfo;
  /** host.stop, called once the answer is on its way. */
  onStop(): void;
  /** The app protocol (app.*), when this host runs the Host services. */
  app?: AppService;
  /** Whether a session that ended stays listed after its last view detaches (a tab the app keeps
   *  to offer Resume); default: it goes once a client has seen it. */
  keepsEnded?(record: SessionRecord): boolean;
  /** The web companion, once the host has started it (companion.* requests). */
  companion?: () => Companion | null;
  /** The other machines, when this host is a hub (machines.*, and views of their sessions). */
  hub?: MachinesHub;
}
