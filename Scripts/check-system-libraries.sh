#!/usr/bin/env bash
# Checks that the C libraries StepKit links are present (zlib for export.zip,
# on Linux libdeflate for its fast CRC-32, SQLite for `stepkit sqlite`), and installs the Debian packages when they
# are missing and we may (root with apt-get). Prints what to do otherwise.
#
#   Scripts/check-system-libraries.sh           the libraries every build needs
#   Scripts/check-system-libraries.sh --isal    also Intel ISA-L (libisal-dev), for
#                                               `swift build --traits ISAL` on Linux
set -euo pipefail
want_isal=false
for argument in "$@"; do
  case "$argument" in
    --isal) want_isal=true ;;
    *) echo "usage: check-system-libraries.sh [--isal]" >&2; exit 2 ;;
  esac
done
missing=()
header_present() { echo "#include <$1>" | cc -E -x c - >/dev/null 2>&1; }
header_present zlib.h || missing+=(zlib1g-dev)
header_present sqlite3.h || missing+=(libsqlite3-dev)
if [ "$(uname)" = "Linux" ]; then header_present libdeflate.h || missing+=(libdeflate-dev); fi
if $want_isal; then
  if [ "$(uname)" != "Linux" ]; then
    echo "check-system-libraries: the ISAL trait is for Linux; other platforms inflate with zlib" >&2
    exit 1
  fi
  header_present isa-l/igzip_lib.h || missing+=(libisal-dev)
fi
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(uname)" = "Linux" ] && command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
  echo "check-system-libraries: installing ${missing[*]}" >&2
  apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  exit 0
fi
echo "StepKit needs the C development packages: ${missing[*]}" >&2
echo "  Debian/Ubuntu: sudo apt-get install ${missing[*]}" >&2
echo "  Fedora: sudo dnf install zlib-devel sqlite-devel libdeflate-devel$($want_isal && echo ' isa-l-devel')    (macOS: included in the SDK)" >&2
exit 1
