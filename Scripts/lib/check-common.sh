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

# Builds PRODUCT of the package in FOLDER in release mode; prints the build's output when it fails.
build_release() {
  swift build -c release --package-path "$1" --product "$2" >"$work/build.txt" 2>&1 || {
    cat "$work/build.txt"
    exit 1
  }
}

# Builds the release `stepkit` (StepKit's package) and `export-generator` (the Benchmarks
# package); sets `bin` to the folder that holds `stepkit` and `generator` to the generator.
build_release_tools() {
  build_release . stepkit
  build_release Benchmarks export-generator
  bin=$(swift build -c release --show-bin-path)
  generator="$(swift build -c release --package-path Benchmarks --show-bin-path)/export-generator"
}
