# Shared by the end-to-end checks (Scripts/check-duckdb.sh, Scripts/check-spark.sh); source it
# after setting `check` (the name printed before each message), `python` and `work` (a
# temporary folder of the caller's).

# Prints why the check cannot run here and ends it with success: a stage that needs a network
# package skips where it cannot be had.
skip() {
  echo "$check: skipped: $1"
  exit 0
}

# Installs each PyPI package that `$python` cannot import yet (the import name is the
# package's own); skips the check when one cannot be installed.
require_python_packages() {
  command -v "$python" >/dev/null || skip "no $python to run $*"
  local package
  for package in "$@"; do
    if ! "$python" -c "import $package" 2>/dev/null; then
      echo "$check: installing $package from PyPI"
      "$python" -m pip install --quiet --disable-pip-version-check "$package" >"$work/pip.txt" 2>&1 ||
        skip "pip install $package failed (PyPI unreachable?): $(tail -1 "$work/pip.txt")"
    fi
  done
}

# Installs the PyPI package `$1` when `$python` cannot import it yet; where it cannot be
# installed, says so and goes on (the caller skips the part that needs it).
offer_python_package() {
  if ! "$python" -c "import $1" 2>/dev/null; then
    echo "$check: installing $1 from PyPI"
    "$python" -m pip install --quiet --disable-pip-version-check "$1" >"$work/pip.txt" 2>&1 ||
      echo "$check: $1 not installed (PyPI unreachable?), its part is skipped: $(tail -1 "$work/pip.txt")"
  fi
}

# Builds the release `stepkit` and `export-generator` (printing the build's output when it
# fails) and sets `bin` to the folder that holds them.
build_release_tools() {
  local product
  for product in stepkit export-generator; do
    swift build -c release --product "$product" >"$work/build.txt" 2>&1 || {
      cat "$work/build.txt"
      exit 1
    }
  done
  bin=$(swift build -c release --show-bin-path)
}
