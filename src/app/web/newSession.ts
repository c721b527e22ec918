// "New session" on the page: an agent and one of the recent folders the host offers, and an
// optional first prompt the host types once the agent is ready. The form sends once; the host's
// answer opens the new session, or says why it could not start.
import type { CompanionClientMessage, CompanionServerMessage } from '../../protocol/companion';

type Launch = Extract<CompanionServerMessage, { t: 'launch' }>;
const $ = (id: string): HTMLElement => document.getElementById(id)!;

export class NewSession {
  private launch: Launch | null = null;
  private pending = false;

  constructor(
    private readonly send: (m: CompanionClientMessage) => void,
    private readonly show: (view: 'list' | 'new') => void,
  ) {
    $('new-session').addEventListener('click', () => this.open());
    $('new-cancel').addEventListener('click', () => this.show('list'));
    $('new-form').addEventListener('submit', (e) => {
      e.preventDefault();
      this.start();
    });
  }

  /** The host's agents and folders: the button shows once there is something to start. */
  offer(m: Launch): void {
    this.launch = m;
    $('new-session').hidden = m.agents.length === 0 || m.folders.length === 0;
    const option = (value: string, text: string): HTMLOptionElement => Object.assign(document.createElement('option'), { value, textContent: text });
    $('new-agent').replaceChildren(...m.agents.map((a) => option(a.id, a.name)));
    $('new-folder').replaceChildren(...m.folders.map((f) => option(f.path, f.label)));
  }

  private open(): void {
    if (!this.launch) return;
    $('new-status').textContent = '';
    this.pending = false;
    ($('new-start') as HTMLButtonElement).disabled = false;
    this.show('new');
  }

  private start(): void {
    if (this.pending) return;
    const prompt = ($('new-prompt') as HTMLTextAreaElement).value.trim();
    this.pending = true;
    ($('new-start') as HTMLButtonElement).disabled = true;
    $('new-status').textContent = 'Starting…';
    this.send({
      t: 'spawn',
      agent: ($('new-agent') as HTMLSelectElement).value,
      folder: ($('new-folder') as HTMLSelectElement).value,
      prompt: prompt || undefined,
    });
  }

  /** The host's answer: true when a session started (the caller opens it). */
  answered(m: Extract<CompanionServerMessage, { t: 'spawned' | 'spawnFailed' }>): boolean {
    this.pending = false;
    ($('new-start') as HTMLButtonElement).disabled = false;
    if (m.t === 'spawnFailed') {
      $('new-status').textContent = `Not started: ${m.message}`;
      return false;
    }
    ($('new-prompt') as HTMLTextAreaElement).value = '';
    return true;
  }
}
