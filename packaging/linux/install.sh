#!/bin/sh
# Installs Termio's desktop entry and icon for the current user (XDG paths), pointing at this
# checkout. Run `npm start` once first so dist/ and the native parts are built.
#   packaging/linux/install.sh            install
#   packaging/linux/install.sh --uninstall
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
data="${XDG_DATA_HOME:-$HOME/.local/share}"
apps="$data/applications"
icons="$data/icons/hicolor"
if [ "${1:-}" = "--uninstall" ]; then
  rm -f "$apps/termio.desktop" "$icons/scalable/apps/termio.svg" "$icons/256x256/apps/termio.png"
  echo "Termio's desktop entry removed."
  exit 0
fi
if [ ! -f "$root/dist/app/main.js" ]; then
  echo "install.sh: $root is not built yet; run 'npm start' there once first." >&2
  exit 1
fi
mkdir -p "$apps" "$icons/scalable/apps" "$icons/256x256/apps"
cp "$root/assets/brand/termio.svg" "$icons/scalable/apps/termio.svg"
cp "$root/assets/brand/termio-256.png" "$icons/256x256/apps/termio.png"
# A path with spaces must be quoted in Exec (Desktop Entry spec, "The Exec key").
launcher="$root/packaging/linux/termio-launch"
case "$launcher" in *" "*) launcher="\"$launcher\"" ;; esac
sed -e "s|@LAUNCHER@|$launcher|" -e "s|@ICON@|termio|" "$root/packaging/linux/termio.desktop.in" > "$apps/termio.desktop.tmp"
mv "$apps/termio.desktop.tmp" "$apps/termio.desktop"
command -v update-desktop-database >/dev/null 2>&1 && update-desktop-database -q "$apps" || true
echo "Installed $apps/termio.desktop"
