// What the host learns about each running session besides its registry record: the tool its
// agent's latest hook report names, the transcript path its hooks reported, and whether the user
// named it (their name then wins over prompt titles).
import type { HookDetails } from '../../../protocol/hookReport';

export class SessionNotes {
  private readonly userTitled = new Set<string>();
  private readonly tools = new Map<string, string>();
  /** Transcript paths hooks reported, for agents whose manifest says `capturesTranscript`. */
  private readonly transcripts = new Map<string, string>();

  titledByUser(id: string): void {
    this.userTitled.add(id);
  }

  isTitledByUser(id: string): boolean {
    return this.userTitled.has(id);
  }

  /** Takes a hook report's details; `capturesTranscript`: the agent's manifest trusts its transcript path. */
  take(id: string, d: HookDetails, capturesTranscript: boolean): void {
    // Only the latest report's tool counts: an older one is not what the agent waits for now.
    if (d.tool) this.tools.set(id, d.tool);
    else this.tools.delete(id);
    if (d.transcriptPath && capturesTranscript) this.transcripts.set(id, d.transcriptPath);
  }

  /** The tool the session's latest hook report named ("Bash"), if any. */
  toolOf(id: string): string | undefined {
    return this.tools.get(id);
  }

  transcriptOf(id: string): string | undefined {
    return this.transcripts.get(id);
  }

  /** The session's process is gone: what its hooks said no longer holds. */
  forgetReports(id: string): void {
    this.tools.delete(id);
    this.transcripts.delete(id);
  }

  /** The session itself is gone (closed by the user). */
  forgetTitle(id: string): void {
    this.userTitled.delete(id);
  }
}
