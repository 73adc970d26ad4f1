#!/usr/bin/env bash
# Tests the browser page in a real browser: Debian's chromium, driven by Playwright for Python
# (from PyPI), against live release builds of trips-server (one per test, each with the sample
# trips). Playwright cannot download its own browser here, so it launches /usr/bin/chromium.
# Screenshots at desktop and phone width land in .build/browser/.
#
# Usage: scripts/checks/browser.sh [PYTEST ARGS...]   (e.g. -k keyboard)
#
# chromium comes from Debian (installed with apt-get when run as root); Playwright, pytest and
# axe-core (axe-playwright-python) go into the virtual environment TRIPS_BROWSER_VENV (default
# .build/browser-venv).
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/lib/require.sh
source scripts/lib/build.sh

require_tool chromium chromium
venv="${TRIPS_BROWSER_VENV:-.build/browser-venv}"
# axe-playwright-python brings axe-core (its axe.min.js), which the tests run in the page.
require_pip "$venv" 'playwright>=1.45,<2' 'pytest>=8,<10' 'axe-playwright-python>=0.1.8,<0.2'

echo "== building the release server"
binary="$(build_release_server)"

echo "== chromium $(chromium --version 2>/dev/null | awk '{print $2}'), playwright $("$venv/bin/python" -c 'from importlib.metadata import version; print(version("playwright"))' 2>/dev/null || echo '?')"
TRIPS_SERVER="$binary" TRIPS_CHROMIUM="$(tool_path chromium)" TRIPS_SCREENSHOTS=.build/browser \
  "$venv/bin/python" -m pytest scripts/checks/browser -p no:cacheprovider -q "$@"
