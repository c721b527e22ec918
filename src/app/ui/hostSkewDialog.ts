// Asked at start when the session host runs another version of Termio (the app was updated while
// sessions kept running). A host on session holders restarts with every agent still running (the
// new host adopts them); an older host, or one without holders, ends every session and the new
// one resumes each exactly (agents come back to their conversation, shells restart in their folder).
import { ButtonRole, QMessageBox, QPushButton } from '@nodegui/nodegui';
import { packageVersion } from '../services/install';

/** True: restart the host now. Blocks until the user answers (the app has no window yet). */
export function askToRestartHost(hostVersion: string, keepsAgents: boolean): boolean {
  const box = new QMessageBox();
  box.setWindowTitle('Termio');
  box.setText(`The session host runs Termio ${hostVersion}; this is Termio ${packageVersion()}.`);
  box.setInformativeText(
    keepsAgents
      ? 'Restart the host to use this version? Your agents keep running: every session stays as it is, with its screen and scrollback.'
      : 'Restart the host to use this version? Every session is ended and resumed: agents come back to their conversation, terminals restart in their folder.',
  );
  const restart = new QPushButton();
  restart.setText('Restart Host');
  const quit = new QPushButton();
  quit.setText('Quit');
  box.addButton(restart, ButtonRole.AcceptRole);
  box.addButton(quit, ButtonRole.RejectRole);
  // Return restarts. NodeGUI 0.74's setDefaultButton hands Qt the JS wrapper instead of the
  // widget, so the native call is made with the widget itself.
  (box.native as unknown as { setDefaultButton(b: unknown): void }).setDefaultButton(restart.native);
  let chosen = false;
  restart.addEventListener('clicked', () => (chosen = true));
  box.exec();
  return chosen;
}
