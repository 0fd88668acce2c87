#!/usr/bin/env bash
# Set up macs on a fresh machine: tmux (Debian/Ubuntu: apt-get, as root or
# with sudo), the npm dependencies, and the build. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v tmux >/dev/null 2>&1; then
  echo "setup: tmux is missing; installing it with apt-get" >&2
  if command -v apt-get >/dev/null 2>&1; then
    if [ "$(id -u)" -eq 0 ]; then SUDO=""; else SUDO="sudo"; fi
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq tmux
  else
    echo "setup: no apt-get here; install tmux 3.2+ with your package manager (macOS: brew install tmux)" >&2
    exit 3
  fi
fi

node -e 'const [a,b]=process.versions.node.split(".").map(Number); if (a<20||(a===20&&b<19)) { console.error("setup: macs needs Node.js >= 20.19, found "+process.versions.node); process.exit(1) }'

# `npm ci`: exactly the versions in package-lock.json, as tested.
npm ci --no-audit --no-fund
npm run build

# A `macs` command on the PATH: npm's global bin links to this checkout. Where
# the global prefix is not writable (no root, no sudo), say how instead.
if npm link --no-audit --no-fund >/dev/null 2>&1 && command -v macs >/dev/null 2>&1; then
  echo "setup: done ($(tmux -V), node $(node -v)); macs is on your PATH: macs --help" >&2
else
  echo "setup: done ($(tmux -V), node $(node -v)); 'npm link' could not put macs on your PATH" >&2
  echo "setup: use 'node dist/main.js' for 'macs', or run 'npm link' with a writable npm prefix (npm config set prefix ~/.local)" >&2
fi
