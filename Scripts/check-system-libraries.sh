#!/usr/bin/env bash
# Checks that the C libraries StepKit links are present (zlib for export.zip,
# SQLite for `stepkit sqlite`: what a machine with the Swift toolchain has), and
# installs the Debian packages when they are missing and we may (root with
# apt-get). Prints what to do otherwise.
#
#   Scripts/check-system-libraries.sh               the libraries every build needs
#   Scripts/check-system-libraries.sh --isal        also Intel ISA-L (libisal-dev), for
#                                                   `swift build --traits ISAL` on Linux
#   Scripts/check-system-libraries.sh --libdeflate  also libdeflate (libdeflate-dev), for
#                                                   `swift build --traits LIBDEFLATE` on Linux
set -euo pipefail
want_isal=false
want_libdeflate=false
for argument in "$@"; do
  case "$argument" in
    --isal) want_isal=true ;;
    --libdeflate) want_libdeflate=true ;;
    *) echo "usage: check-system-libraries.sh [--isal] [--libdeflate]" >&2; exit 2 ;;
  esac
done
missing=()
header_present() { echo "#include <$1>" | cc -E -x c - >/dev/null 2>&1; }
header_present zlib.h || missing+=(zlib1g-dev)
header_present sqlite3.h || missing+=(libsqlite3-dev)
if { $want_isal || $want_libdeflate; } && [ "$(uname)" != "Linux" ]; then
  echo "check-system-libraries: the ISAL and LIBDEFLATE traits are for Linux; other platforms use zlib" >&2
  exit 1
fi
if $want_isal; then header_present isa-l/igzip_lib.h || missing+=(libisal-dev); fi
if $want_libdeflate; then header_present libdeflate.h || missing+=(libdeflate-dev); fi
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(uname)" = "Linux" ] && command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
  echo "check-system-libraries: installing ${missing[*]}" >&2
  apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  exit 0
fi
echo "StepKit needs the C development packages: ${missing[*]}" >&2
echo "  Debian/Ubuntu: sudo apt-get install ${missing[*]}" >&2
echo "  Fedora: sudo dnf install zlib-devel sqlite-devel$($want_libdeflate && echo ' libdeflate-devel')$($want_isal && echo ' isa-l-devel')    (macOS: included in the SDK)" >&2
exit 1
