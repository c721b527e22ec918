// The id of the bundled manifest for a plain login shell (agents/terminal.json): what a session
// with no agent runs. Its own module so the app can name it without loading the launcher.
export const TERMINAL_AGENT_ID = 'terminal';
