// The memory reference for the app: a bare Qt window from the same runtime Termio's app runs in
// (this Node, the Qt loop shim or qode, NodeGUI), with one label, shown and settled. It prints
// its own resident set size as JSON once asked on stdin, then exits.
'use strict';
const { join } = require('node:path');
const { readFileSync } = require('node:fs');
const { startQtRuntime } = require(join(__dirname, '..', '..', 'dist', 'app', 'platform', 'index.js'));
startQtRuntime('bareqt');
const { QMainWindow, QLabel } = require('@nodegui/nodegui');
const win = new QMainWindow();
win.setWindowTitle('bare Qt');
const label = new QLabel();
label.setText('a bare Qt window');
win.setCentralWidget(label);
win.resize(1400, 900);
win.show();
global.win = win;
process.stdout.write('shown\n');
process.stdin.on('data', () => {
  const s = readFileSync('/proc/self/status', 'utf8');
  process.stdout.write(JSON.stringify({ rssKb: Number(/VmRSS:\s+(\d+)/.exec(s)[1]) }) + '\n');
  process.exit(0);
});
