#!/usr/bin/env bash
# System packages the test suite needs, installed from Debian's packages when missing (CI and fresh machines).
#   chromium: the HTML report is opened and screenshotted in headless Chromium
#   libreoffice (calc): the classroom workbook's formulas are recalculated by a real spreadsheet engine
#   poppler-utils: pdftoppm renders the workbook's PDF to PNG pages
#   postgresql: the statistics' SQL runs in a private PostgreSQL cluster (tests/test_sql_postgres.py; skipped without)
set -euo pipefail
need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v soffice >/dev/null 2>&1 || need+=(libreoffice-calc-nogui)
command -v pdftoppm >/dev/null 2>&1 || need+=(poppler-utils)
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || need+=(postgresql)
if [ ${#need[@]} -eq 0 ]; then exit 0; fi
if [ "$(id -u)" != 0 ]; then
  echo "system-deps: missing ${need[*]}; run as root or install them: apt-get install ${need[*]}" >&2
  exit 0  # the tests that need them skip with that reason
fi
echo "system-deps: installing ${need[*]} (apt-get)"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
