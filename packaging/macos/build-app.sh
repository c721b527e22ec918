#!/bin/bash
# Builds Termio.app and Termio.dmg on a Mac (run from the checkout after `npm start` once):
#   packaging/macos/build-app.sh [outdir]      → outdir/Termio.app, outdir/Termio-<version>.dmg
# The bundle is a dock + menu-bar app: Contents/MacOS/Termio runs qode (NodeGUI's Node with Qt's
# loop) on the app's compiled JavaScript, shipped in Contents/Resources/app with its node_modules.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-"$root/packaging/out"}
[ "$(uname)" = Darwin ] || { echo "build-app.sh: run this on macOS (it uses iconutil and hdiutil)" >&2; exit 1; }
[ -f "$root/dist/app/main.js" ] || { echo "build-app.sh: run 'npm start' once first to build dist/" >&2; exit 1; }
version=$(node -p "require('$root/package.json').version")
app="$out/Termio.app"
rm -rf "$app" && mkdir -p "$app/Contents/MacOS" "$app/Contents/Resources/app"

sed "s/@VERSION@/$version/g" "$root/packaging/macos/Info.plist.in" > "$app/Contents/Info.plist"

# Icon: render the brand SVG to every size iconutil wants.
iconset=$(mktemp -d)/termio.iconset && mkdir -p "$iconset"
for size in 16 32 128 256 512; do
  sips -s format png -z $size $size "$root/assets/brand/termio-256.png" --out "$iconset/icon_${size}x${size}.png" >/dev/null
  double=$((size * 2))
  sips -s format png -z $double $double "$root/assets/brand/termio-256.png" --out "$iconset/icon_${size}x${size}@2x.png" >/dev/null
done
iconutil -c icns "$iconset" -o "$app/Contents/Resources/termio.icns"

# The app's code and its runtime dependencies (dev dependencies pruned).
rsync -a --delete "$root/dist" "$root/agents" "$root/assets" "$root/bin" "$root/package.json" "$root/package-lock.json" "$app/Contents/Resources/app/"
(cd "$app/Contents/Resources/app" && cp -R "$root/node_modules" . && npm prune --omit=dev --ignore-scripts >/dev/null)
# The terminal's painter, where dist/ looks for it (beside node_modules, as in the checkout).
mkdir -p "$app/Contents/Resources/app/native/gridpaint/build/Release"
cp "$root/native/gridpaint/build/Release/gridpaint.node" "$app/Contents/Resources/app/native/gridpaint/build/Release/"

cat > "$app/Contents/MacOS/Termio" <<'LAUNCH'
#!/bin/bash
res="$(cd "$(dirname "$0")/../Resources/app" && pwd)"
exec "$res/node_modules/@nodegui/qode/binaries/qode" "$res/dist/app/main.js" "$@"
LAUNCH
chmod +x "$app/Contents/MacOS/Termio"

codesign --force --deep --sign - "$app" 2>/dev/null || echo "note: ad-hoc signing failed; the app still runs locally"
hdiutil create -volname Termio -srcfolder "$app" -ov -format UDZO "$out/Termio-$version.dmg" >/dev/null
echo "Built $app and $out/Termio-$version.dmg"
