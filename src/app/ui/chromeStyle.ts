// The window chrome's look (sidebar, empty state, dialogs) as one Qt style sheet, so the
// app reads as one product; the terminal grid itself is painted by the terminal view.
export interface ChromeColors {
  window: string;
  sidebar: string;
  border: string;
  text: string;
  muted: string;
  accent: string;
}

export const darkChrome: ChromeColors = {
  window: '#1b1e25',
  sidebar: '#15181e',
  border: '#2a2f3a',
  text: '#dfe4ee',
  muted: '#8a93a6',
  accent: '#7ee0b5',
};

export function chromeStyleSheet(c: ChromeColors = darkChrome): string {
  return `
    #mainWindow, #central, #stack, #emptyState { background-color: ${c.window}; color: ${c.text}; }
    #sidebar { background-color: ${c.sidebar}; border-right: 1px solid ${c.border}; }
    #sidebarHeading { color: ${c.muted}; font-size: 11px; font-weight: 600; letter-spacing: 1px; }
    #emptyTitle { color: ${c.text}; font-size: 20px; font-weight: 600; }
    #emptyHint { color: ${c.muted}; font-size: 13px; padding-top: 6px; }
    #sidebarScroll, #sidebarContent, #sidebarSpacer { background-color: ${c.sidebar}; border: none; }
    #whyStrip { color: ${c.muted}; font-size: 11px; border-top: 1px solid ${c.border}; padding: 8px 4px 2px 4px; }
    #banner { background-color: #4a2f12; color: #ffd9ad; border-bottom: 1px solid #ff9f43; padding: 8px 14px; }
    #mainArea { background-color: ${c.window}; }
    #exitBar { background-color: ${c.sidebar}; border-top: 1px solid ${c.border}; }
    #exitLabel { color: ${c.text}; }
    QPushButton { background-color: #2a3140; color: ${c.text}; border: 1px solid #3a4356; border-radius: 6px; padding: 4px 14px; }
    QPushButton:hover { background-color: #343c4e; }
    QPushButton:disabled { color: ${c.muted}; }
    QToolTip { background-color: ${c.sidebar}; color: ${c.text}; border: 1px solid ${c.border}; }
  `;
}
