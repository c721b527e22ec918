// The Settings window and the first-launch welcome card: each made on first use, kept while the
// app runs (NodeGUI objects die with their wrappers), restyled with the app, refreshed when the
// catalog or settings change.
import { homedir } from 'node:os';
import type { AppHost } from '../client/appHost';
import type { Logger } from '../services/log';
import type { GlobalKeys } from '../platform/globalKeys';
import type { ChromeColors } from './chromeStyle';
import type { MainWindow } from './mainWindow';
import { hooksChangedText, settingsAgent, type SettingsAgent } from './presenters/settingsText';
import { PhoneModel } from './phoneModel';
import { PhonePage } from './phonePage';
import { MachinesPage } from './machinesPage';
import { SettingsWindow } from './settingsWindow';
import { WelcomeWindow } from './welcomeWindow';

export interface SettingsPanelsOptions {
  host: AppHost;
  log: Logger;
  chrome(): ChromeColors;
  /** The window the panels open over, if any. */
  activeWindow(): MainWindow | null;
  /** The system-wide keys, whose status Settings → Shortcuts shows. */
  globalKeys: GlobalKeys;
}

export class SettingsPanels {
  private settingsWindow: SettingsWindow | null = null;
  private welcome: WelcomeWindow | null = null;

  constructor(private readonly opts: SettingsPanelsOptions) {
    opts.globalKeys.onStatus(() => this.settingsWindow?.globalKeysChanged());
  }

  showSettings(): void {
    if (!this.settingsWindow) {
      const host = this.opts.host;
      this.settingsWindow = new SettingsWindow(
        {
          settings: () => host.settings.settings,
          errors: () => host.settings.errors,
          settingsFile: () => host.paths.settingsFile,
          set: (path, value) => void host.setSetting(path, value),
          moveAgent: (id, delta) => void host.moveAgent(id, delta),
          agents: () => this.settingsAgents(),
          setHooks: async (id, on) => hooksChangedText(host.agentName(id), on, await host.setHooks(id, on), homedir()),
          phone: new PhonePage(new PhoneModel(host.paths.runDir)),
          machines: this.machinesPage(),
          globalKeys: () => {
            const keys = this.opts.globalKeys;
            return { statuses: keys.statuses(), unavailable: keys.backend.kind === 'unavailable' ? keys.backend.why : null };
          },
        },
        this.opts.chrome(),
      );
    }
    this.settingsWindow.show(undefined, this.opts.activeWindow()?.window);
    // The hooks' state is the host's to check (it repairs what it finds): painted once it answers.
    void this.opts.host.refreshHooks().then(() => this.settingsWindow?.refresh());
  }

  /** Settings → Machines, asking the host; repainted as the host reports each machine's state. */
  private machinesPage(): MachinesPage {
    const host = this.opts.host;
    const page = new MachinesPage(
      {
        list: () => host.machines,
        add: (m) => host.addMachine(m),
        remove: (name) => host.removeMachine(name),
      },
      () => this.settingsWindow?.refresh(),
    );
    host.onMachinesChanged((machines) => page.changed(machines));
    return page;
  }

  private settingsAgents(): SettingsAgent[] {
    const host = this.opts.host;
    return host.orderedAgents().map((e) => settingsAgent(e, e.manifest.hooks ? host.hookStatus(e.id) : null, homedir()));
  }

  /** First launch: offer live status for the agents on the PATH (skippable, asked once), once the
   *  host has said whose hooks are in. */
  maybeWelcome(): void {
    if (this.opts.host.settings.settings.welcomeShown) return;
    void this.opts.host.refreshHooks().then(() => this.showWelcome());
  }

  private showWelcome(): void {
    const { host, log } = this.opts;
    const agents = this.settingsAgents().filter((a) => a.unavailable === null && a.hooks);
    const done = () => void host.setSetting(['welcomeShown'], true);
    this.welcome = new WelcomeWindow({
      agents,
      onInstall: (ids) => {
        void Promise.all(ids.map((id) => host.setHooks(id, true))).then(done);
      },
      onSkip: done,
      chrome: this.opts.chrome(),
    });
    this.welcome.show(this.opts.activeWindow()?.contentGeometry());
    log.info('welcome shown', { agents: agents.map((a) => a.id) });
  }

  setChrome(chrome: ChromeColors): void {
    this.settingsWindow?.setChrome(chrome);
    this.welcome?.setChrome(chrome);
  }

  /** settings.json changed: the banner of its problems is redone. */
  settingsChanged(): void {
    this.settingsWindow?.refreshProblems();
  }

  /** The catalog changed: every page is rebuilt. */
  catalogChanged(): void {
    this.settingsWindow?.refresh();
  }
}
