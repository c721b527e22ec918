#!/bin/bash
# Builds Termio.app and Termio.dmg on a Mac (run from the checkout after `npm start` once):
#   packaging/macos/build-app.sh [outdir]          → outdir/Termio.app, outdir/Termio-<version>.dmg
#   packaging/macos/build-app.sh --check [outdir]  → builds the bundle tree and checks it, on any OS
# The layout is nodegui/packer's: Contents/MacOS/qode (NodeGUI's Node with Qt's loop) is the
# main executable, qode.json beside it names the entry point, and the app's compiled JavaScript,
# its node_modules and the compiled hook reporter live in Contents/Resources/app. macOS then sees
# one real app (its name, bundle id, icon, notifications, Dock) rather than a script.
# --check skips what needs a Mac (iconutil, macdeployqt, codesign, hdiutil); where qode itself is
# not installed (Linux), a stand-in marks its place so the tree can still be checked.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
check=0
if [ "${1:-}" = --check ]; then check=1; shift; fi
out=${1:-"$root/packaging/out"}
mac=0; [ "$(uname)" = Darwin ] && mac=1
fail() { echo "build-app.sh: $*" >&2; exit 1; }
[ $mac = 1 ] || [ $check = 1 ] || fail "run this on macOS (it uses iconutil, codesign and hdiutil), or use --check to build and check the tree anywhere"
[ -f "$root/dist/app/main.js" ] || fail "run 'npm start' once first to build dist/"
reporter="$root/native/termio-hook/build/termio-hook"
[ -x "$reporter" ] || fail "the compiled hook reporter $reporter is missing: run 'npm start' once with a C compiler installed (Xcode's command line tools)"
version=$(node -p "require('$root/package.json').version")
mkdir -p "$out"
out=$(cd "$out" && pwd)
app="$out/Termio.app"
res="$app/Contents/Resources/app"
rm -rf "$app" && mkdir -p "$app/Contents/MacOS" "$res"

sed "s/@VERSION@/$version/g" "$root/packaging/macos/Info.plist.in" > "$app/Contents/Info.plist"

# Icon: every size iconutil wants on a Mac; elsewhere one 256 px image in an .icns.
if [ $mac = 1 ]; then
  iconset=$(mktemp -d)/termio.iconset && mkdir -p "$iconset"
  for size in 16 32 128 256 512; do
    sips -s format png -z $size $size "$root/assets/brand/termio-256.png" --out "$iconset/icon_${size}x${size}.png" >/dev/null
    double=$((size * 2))
    sips -s format png -z $double $double "$root/assets/brand/termio-256.png" --out "$iconset/icon_${size}x${size}@2x.png" >/dev/null
  done
  iconutil -c icns "$iconset" -o "$app/Contents/Resources/termio.icns"
else
  node "$root/scripts/lib/macBundle.mjs" icns "$root/assets/brand/termio-256.png" "$app/Contents/Resources/termio.icns"
fi

# The app's code, the compiled hook reporter, and the runtime dependencies (dev dependencies pruned).
cp -R "$root/dist" "$root/agents" "$root/assets" "$root/bin" "$root/package.json" "$root/package-lock.json" "$res/"
mkdir -p "$res/native/termio-hook/build"
cp "$reporter" "$res/native/termio-hook/build/termio-hook"
chmod 755 "$res/native/termio-hook/build/termio-hook"
# The global-hotkey helper, when set-up could build it (without it Settings says global keys are unavailable).
if [ -x "$root/native/termio-hotkeys/build/termio-hotkeys" ]; then
  mkdir -p "$res/native/termio-hotkeys/build"
  cp "$root/native/termio-hotkeys/build/termio-hotkeys" "$res/native/termio-hotkeys/build/termio-hotkeys"
fi
cp -R "$root/node_modules" "$res/node_modules"
(cd "$res" && npm prune --omit=dev --ignore-scripts --no-audit --no-fund >/dev/null) || fail "npm prune failed in $res"
# node-pty's prebuilt spawn-helper comes without its execute bit; without it no session starts.
node "$root/scripts/lib/nodePtyHelper.mjs" "$res/node_modules/node-pty" >/dev/null
# Windows builds of node-pty have no use in a Mac app.
rm -rf "$res/node_modules/node-pty/prebuilds/win32-"*
# The terminal's painter, where dist/ looks for it (beside node_modules, as in the checkout).
mkdir -p "$res/native/gridpaint/build/Release"
cp "$root/native/gridpaint/build/Release/gridpaint.node" "$res/native/gridpaint/build/Release/"

# The main executable: qode itself, and qode.json beside it naming the entry point (qode reads
# the file next to its own executable and loads distPath before anything else).
qode="$root/node_modules/@nodegui/qode/binaries/qode"
if [ -f "$qode" ]; then
  cp "$qode" "$app/Contents/MacOS/qode"
elif [ $check = 1 ]; then
  printf '#!/bin/sh\necho "stand-in for qode: build-app.sh --check ran where qode is not installed" >&2\nexit 1\n' > "$app/Contents/MacOS/qode"
else
  fail "qode is not installed at $qode: run 'npm start' once on this Mac"
fi
chmod 755 "$app/Contents/MacOS/qode"
# One copy of qode is enough: the launcher finds the bundle's own (src/app/platform/launch.ts).
rm -rf "$res/node_modules/@nodegui/qode/binaries"
printf '{\n  "distPath": "../Resources/app/dist/app/main.js"\n}\n' > "$app/Contents/MacOS/qode.json"

# Qt's frameworks into Contents/Frameworks, with NodeGUI's addon pointed at them.
if [ $check = 0 ]; then
  qthome=$(node -p "require('$root/node_modules/@nodegui/nodegui/config/qtConfig.js').qtHome" 2>/dev/null || true)
  if [ -n "$qthome" ] && [ -x "$qthome/bin/macdeployqt" ]; then
    # macOS's bash is 3.2: an empty array under set -u needs the ${a[@]+...} form below.
    addons=()
    while IFS= read -r f; do addons+=("-executable=$f"); done < <(find "$res/node_modules" -name '*.node' -type f)
    "$qthome/bin/macdeployqt" "$app" -libpath="$qthome/lib" ${addons[@]+"${addons[@]}"} || fail "macdeployqt failed (see above)"
  else
    echo "note: macdeployqt not found under NodeGUI's Qt ($qthome); the bundle uses Qt from this checkout's node_modules" >&2
  fi
fi

node "$root/scripts/lib/macBundle.mjs" check "$app" "$version" || fail "the bundle at $app is not right (see above)"
if [ $check = 1 ]; then
  echo "Built and checked $app (no signing or disk image with --check)"
  exit 0
fi

plutil -lint "$app/Contents/Info.plist" >/dev/null || fail "plutil rejects $app/Contents/Info.plist"
# Ad-hoc signature: Gatekeeper still asks on first open (see the README), but macOS needs a
# signed bundle for notifications and a stable identity.
sign_log=$(mktemp)
# Programs and addons under Resources are not nested bundles, so --deep does not reach them:
# each gets its own ad-hoc signature first (Apple Silicon runs no unsigned code).
while IFS= read -r f; do
  codesign --force --sign - "$f" 2>"$sign_log" || { cat "$sign_log" >&2; fail "ad-hoc signing $f failed (codesign's output is above)"; }
done < <(find "$res" -type f \( -name '*.node' -o -name '*.dylib' -o -name spawn-helper -o -name termio-hook -o -name termio-hotkeys \))
if ! codesign --force --deep --sign - "$app" 2>"$sign_log"; then
  cat "$sign_log" >&2
  fail "ad-hoc signing failed (codesign's output is above)"
fi
codesign --verify --deep --strict "$app" 2>"$sign_log" || { cat "$sign_log" >&2; fail "the signature does not verify"; }
hdiutil create -volname Termio -srcfolder "$app" -ov -format UDZO "$out/Termio-$version.dmg" >/dev/null
echo "Built $app and $out/Termio-$version.dmg"
