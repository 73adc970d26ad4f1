# shellcheck shell=bash
# scripts/lib/require.sh - sourced by every script in scripts/: checks for the tools a script
# needs before it does any work, and brings in the missing ones where it can. The rule:
#
#   - A tool from a Debian package is installed with `apt-get install -y PACKAGE` when the
#     script runs as root on a machine with apt-get (after one `apt-get update` per run,
#     shared with the scripts it starts). Otherwise, or with TRIPS_NO_INSTALL=1, the script
#     stops before doing any work, naming the tool and the command that brings it.
#   - PyPI packages go into the script's own virtual environment, never the system's Python.
#   - What comes with the Swift toolchain (swift, its clang, its sanitizer and libFuzzer
#     runtimes) is never installed here: the message says where to get it.
#
# Functions:
#   require_tool NAME PACKAGE [HOW]  command NAME (on PATH, or in /usr/sbin or /sbin) from the
#                                    Debian package PACKAGE; PACKAGE "-" means none, and HOW
#                                    says how to get NAME instead
#   tool_path NAME                   where NAME is (nginx lives in /usr/sbin, off a user's PATH)
#   require_file PATH PACKAGE        a file (a C header: /usr/include/zlib.h) from the Debian
#                                    package PACKAGE
#   require_swift                    the swift driver
#   require_clang_runtime KIND       the toolchain's runtime for --sanitize=KIND (thread,
#                                    address or fuzzer)
#   require_toolchain_clang          prints the clang that ships with the Swift toolchain
#   require_venv DIR                 a virtual environment at DIR (python3 -m venv; Debian's
#                                    python3 needs python3-venv for that)
#   require_pip DIR SPEC...          the PyPI requirements SPEC in the virtual environment DIR
#   die MESSAGE                      "script: MESSAGE" on standard error, exit 2
#
# Everything this file prints goes to standard error.

TRIPS_SCRIPT="${TRIPS_SCRIPT:-scripts/$(basename "$(dirname "$0")")/$(basename "$0")}"
SWIFT_HOW="https://www.swift.org/install/ (Swift 6.2 or newer, the full toolchain: it ships clang and the sanitizer and libFuzzer runtimes; put its usr/bin on PATH)"

die() {
  echo "$TRIPS_SCRIPT: $*" >&2
  exit 2
}

tool_path() {
  local dir
  command -v "$1" 2>/dev/null && return 0
  for dir in /usr/sbin /sbin /usr/local/sbin; do
    [[ -x "$dir/$1" ]] && { echo "$dir/$1"; return 0; }
  done
  return 1
}

# can_install: true when missing Debian packages may be installed here.
can_install() {
  [[ "${TRIPS_NO_INSTALL:-0}" != 1 && "$(id -u)" == 0 ]] && command -v apt-get >/dev/null 2>&1
}

# apt_install PACKAGE...: `apt-get update` once per run, then `apt-get install -y`. No
# package's maintainer scripts may start a service here (installing nginx starts one on
# port 80 otherwise): where the machine has no /usr/sbin/policy-rc.d, one that says no is
# put there for the install and removed after it.
apt_install() {
  local log
  log="$(mktemp "${TMPDIR:-/tmp}/trips-apt.XXXXXX")"
  if [[ "${TRIPS_APT_UPDATED:-0}" != 1 ]]; then
    echo "$TRIPS_SCRIPT: apt-get update" >&2
    DEBIAN_FRONTEND=noninteractive timeout 600 apt-get update -q >"$log" 2>&1 \
      || { tail -n 20 "$log" >&2; rm -f "$log"; die "apt-get update failed"; }
    export TRIPS_APT_UPDATED=1
  fi
  echo "$TRIPS_SCRIPT: apt-get install -y $*" >&2
  (
    if [[ ! -e /usr/sbin/policy-rc.d ]]; then
      trap 'rm -f /usr/sbin/policy-rc.d' EXIT
      printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
      chmod 755 /usr/sbin/policy-rc.d
    fi
    DEBIAN_FRONTEND=noninteractive timeout 900 apt-get install -y -q "$@" >"$log" 2>&1
  ) || { tail -n 20 "$log" >&2; rm -f "$log"; die "apt-get install -y $* failed"; }
  rm -f "$log"
}

require_tool() {
  local name="$1" package="${2:--}" how="${3:-}"
  tool_path "$name" >/dev/null && return 0
  [[ "$package" != - ]] || die "$name is missing; get it from ${how:-wherever this system keeps it}"
  if can_install; then
    apt_install "$package"
    tool_path "$name" >/dev/null && return 0
    die "$name is still missing after apt-get install -y $package"
  fi
  if [[ -n "$how" ]]; then
    :
  elif ! command -v apt-get >/dev/null 2>&1; then
    how="the Debian package $package, or the package of $name for this system"
  elif [[ "$(id -u)" != 0 ]]; then
    how="sudo apt-get install -y $package (run as root, this script installs it itself)"
  else
    how="apt-get install -y $package (TRIPS_NO_INSTALL=1 is set, so this script installs nothing)"
  fi
  die "$name is missing; install it with: $how"
}

require_file() {
  local path="$1" package="$2"
  [[ -e "$path" ]] && return 0
  if can_install; then
    apt_install "$package"
    [[ -e "$path" ]] && return 0
    die "$path is still missing after apt-get install -y $package"
  fi
  die "$path is missing; install it with: apt-get install -y $package (as root)"
}

require_swift() {
  require_tool swift - "$SWIFT_HOW"
}

# toolchain_usr: the usr/ folder of the toolchain that `swift` runs from.
toolchain_usr() {
  dirname "$(dirname "$(readlink -f "$(command -v swift)")")"
}

require_clang_runtime() {
  local kind="$1" short found usr
  case "$kind" in
    thread) short=tsan ;;
    address) short=asan ;;
    fuzzer) short=fuzzer ;;
    *) die "require_clang_runtime: unknown kind $kind" ;;
  esac
  require_swift
  usr="$(toolchain_usr)"
  found="$(find "$usr/lib/swift/clang" "$usr/lib/clang" -name "libclang_rt.${short}[-.]*" -print -quit 2>/dev/null || true)"
  [[ -n "$found" ]] || die "the Swift toolchain in $usr has no clang runtime for --sanitize=$kind" \
    "(libclang_rt.$short-$(uname -m).a under $usr/lib/swift/clang/lib/linux); swiftc links only" \
    "its own toolchain's runtime (Debian's libclang-rt-*-dev does not help); get a full toolchain from $SWIFT_HOW"
}

require_toolchain_clang() {
  local clang
  require_swift
  clang="$(dirname "$(readlink -f "$(command -v swift)")")/clang"
  [[ -x "$clang" ]] || die "no clang beside swift ($clang); get a full toolchain from $SWIFT_HOW"
  echo "$clang"
}

require_venv() {
  local dir="$1"
  [[ -x "$dir/bin/python" ]] && "$dir/bin/python" -c '' 2>/dev/null && return 0
  if [[ -e "$dir" ]]; then
    [[ -f "$dir/pyvenv.cfg" ]] || die "$dir exists and is not a Python virtual environment; move it away"
    echo "$TRIPS_SCRIPT: $dir is a broken virtual environment; making it again" >&2
    rm -rf "$dir"
  fi
  require_tool python3 python3
  echo "$TRIPS_SCRIPT: python3 -m venv $dir" >&2
  mkdir -p "$(dirname "$dir")"
  if ! python3 -m venv "$dir" >/dev/null 2>&1; then
    rm -rf "$dir"
    # Debian's python3 leaves out venv's ensurepip; the package python3-venv brings it.
    can_install || die "python3 cannot make a virtual environment (python3 -m venv $dir failed);" \
      "install python3-venv with: sudo apt-get install -y python3-venv (as root, this script installs it)"
    apt_install python3-venv
    python3 -m venv "$dir" >&2 || die "python3 -m venv $dir failed, even with python3-venv installed"
  fi
}

require_pip() {
  local dir="$1" missing
  shift
  require_venv "$dir"
  # The requirements this environment does not meet yet, one a line (all of them if the
  # check itself fails); pip would also skip satisfied ones, but this asks no index at all.
  missing="$("$dir/bin/python" - "$@" 2>/dev/null <<'PYTHON'
import sys
from importlib.metadata import PackageNotFoundError, version
from pip._vendor.packaging.requirements import Requirement

for spec in sys.argv[1:]:
    requirement = Requirement(spec)
    try:
        if requirement.specifier.contains(version(requirement.name), prereleases=True):
            continue
    except PackageNotFoundError:
        pass
    print(spec)
PYTHON
)" || missing="$(printf '%s\n' "$@")"
  [[ -n "$missing" ]] || return 0
  local specs
  mapfile -t specs <<<"$missing"
  [[ "${TRIPS_NO_INSTALL:-0}" != 1 ]] \
    || die "missing in $dir: ${specs[*]}; install with: $dir/bin/pip install ${specs[*]@Q}"
  echo "$TRIPS_SCRIPT: pip install into $dir: ${specs[*]}" >&2
  timeout 900 "$dir/bin/python" -m pip install --quiet --disable-pip-version-check "${specs[@]}" >&2 \
    || die "pip install ${specs[*]} into $dir failed"
}
