// Changes scripts/setup.mjs makes to NodeGUI's C++ source before it compiles the addon on Linux
// (macOS uses the published binary, which still has them unfixed). Each is a literal replacement
// in one file, checked against the source: a NodeGUI whose source no longer has the text stops the
// set-up with the file and the reason, rather than building something unpatched by surprise.
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const NODEGUI_PATCHES = [
  {
    file: 'src/cpp/lib/core/Events/eventwidget.cpp',
    why:
      'every Qt event a NodeGUI widget gets that no listener asked for was found with ' +
      'unordered_map::at, which throws std::out_of_range, caught at once: about 16 C++ exceptions ' +
      '(unwinding through every loaded library) between a key press and its painted echo',
    from: '      std::string eventTypeString = subscribedEvents.at(evtType);\n',
    to:
      '      auto subscribed = subscribedEvents.find(evtType);\n' +
      '      if (subscribed == subscribedEvents.end()) return baseWidgetResult;\n' +
      '      std::string eventTypeString = subscribed->second;\n',
  },
];

/** Changes with the patches' text: part of the compiled addon's cache key. */
export function nodeguiPatchesHash() {
  return createHash('sha256').update(JSON.stringify(NODEGUI_PATCHES)).digest('hex').slice(0, 12);
}

/** Applies every patch under NodeGUI's package folder (each once); throws naming what did not match. */
export function applyNodeguiPatches(pkgDir) {
  for (const p of NODEGUI_PATCHES) {
    const path = join(pkgDir, p.file);
    const text = readFileSync(path, 'utf8');
    if (text.includes(p.to)) continue;
    if (!text.includes(p.from))
      throw new Error(
        `${path} does not contain the text Termio's patch replaces (${p.why.split(',')[0]}): update scripts/lib/nodeguiPatches.mjs for this NodeGUI`,
      );
    writeFileSync(path, text.replace(p.from, p.to));
  }
}
