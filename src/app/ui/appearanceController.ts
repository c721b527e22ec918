// Dark or light for the whole app: decided from the theme setting, else TERMIO_APPEARANCE, else
// the OS palette, else dark; decided again when the OS palette changes, when the app comes to
// the front and when settings change, and reported only when the answer changed.
import { QApplication, WidgetEventTypes } from '@nodegui/nodegui';
import type { Logger } from '../services/log';
import { appearanceOverride, decideAppearance, systemAppearance, type Appearance, type ThemeSetting } from './appearance';
import { chromeFor, type ChromeColors } from './chromeStyle';

export class AppearanceController {
  private current: Appearance;
  /** TERMIO_APPEARANCE, read once at start. */
  private readonly env: Appearance | null;

  constructor(
    private readonly qApp: QApplication,
    private readonly theme: () => ThemeSetting,
    private readonly log: Logger,
    private readonly onChange: (next: Appearance) => void,
  ) {
    const env = appearanceOverride(process.env.TERMIO_APPEARANCE);
    if (env.error) log.warn(env.error);
    this.env = env.appearance;
    this.current = this.decide();
    log.info('appearance', { appearance: this.current, setting: theme() });
    // The OS switched between light and dark (or the desktop's palette changed): Qt updates the
    // application palette and tells the application object.
    qApp.addEventListener(WidgetEventTypes.ApplicationPaletteChange, () => this.update('system palette changed'));
    // And check again whenever the app comes to the front, in case that event was missed.
    qApp.addEventListener(WidgetEventTypes.ApplicationActivate, () => this.update('app activated'));
  }

  get appearance(): Appearance {
    return this.current;
  }

  get chrome(): ChromeColors {
    return chromeFor(this.current);
  }

  /** Decides again; tells onChange when the appearance changed (`why` goes to the log). */
  update(why: string): void {
    const next = this.decide();
    if (next === this.current) return;
    this.current = next;
    this.log.info('appearance', { appearance: next, why });
    this.onChange(next);
  }

  private decide(): Appearance {
    return decideAppearance(this.theme(), this.env, systemAppearance(this.qApp));
  }
}
