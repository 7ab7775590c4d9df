# Builds the `stepkit` command in release mode and installs it onto the PATH.
#
#   make                              release build (swift build -c release; on Linux with
#                                     --static-swift-stdlib, see below)
#   make install                      into /usr/local: bin/stepkit, lib/stepkit/
#   make install PREFIX=$HOME/.local anywhere else (DESTDIR is honoured for packaging)
#   make uninstall PREFIX=$HOME/.local
#
# The executable and its resource bundle (the demo export plain `stepkit` counts)
# go to $(PREFIX)/lib/stepkit; $(PREFIX)/bin/stepkit is a link to it, because
# the command finds the bundle next to the executable it resolves to.
#
# On Linux the Swift runtime and Foundation are linked into the executable
# (--static-swift-stdlib): it runs without the toolchain's libraries, and it
# starts in about 5 ms instead of 13 (no dynamic symbol binding), which every
# `stepkit` call pays. Only system C libraries (zlib, sqlite3) stay
# shared. `make SWIFT_BUILD_FLAGS=` builds against the shared runtime instead.
# The installed executable is stripped of its symbol tables and debug information
# (`make install STRIP=true` keeps them for a debugger). The static Foundation's
# atomic file writing refers to glibc's `mktemp`, whose definition makes every
# link print a warning; `-Xlinker --wrap=mktemp` sends that reference to the
# command's own `mktemp` (Sources/stepkit/TemporaryName.swift), so glibc's is not
# linked and the link prints no warning (`.ci/run install` fails on any). The
# toolchain's lld would be silent too, at the same size (59.7 MB stripped against
# 59.8), but only because it ignores glibc's link warnings altogether, for every
# function; the default linker stays and keeps reporting them.

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib/stepkit
SWIFT ?= swift
SWIFT_BUILD_FLAGS ?= $(if $(filter Linux,$(shell uname -s)),--static-swift-stdlib -Xlinker --wrap=mktemp,)
STRIP ?= strip

.PHONY: all build install uninstall

all: build

build:
	$(SWIFT) build -c release $(SWIFT_BUILD_FLAGS) --product stepkit

install: build
	@bin="$$($(SWIFT) build -c release $(SWIFT_BUILD_FLAGS) --show-bin-path)" && \
	set -e && \
	install -d "$(DESTDIR)$(LIBDIR)" "$(DESTDIR)$(BINDIR)" && \
	install -m 755 "$$bin/stepkit" "$(DESTDIR)$(LIBDIR)/stepkit" && \
	$(STRIP) "$(DESTDIR)$(LIBDIR)/stepkit" && \
	for bundle in "$$bin"/StepKit_stepkit.resources "$$bin"/StepKit_stepkit.bundle; do \
	  if [ -d "$$bundle" ]; then \
	    rm -rf "$(DESTDIR)$(LIBDIR)/$${bundle##*/}" && \
	    cp -R "$$bundle" "$(DESTDIR)$(LIBDIR)/"; \
	  fi; \
	done && \
	ln -sf "$(LIBDIR)/stepkit" "$(DESTDIR)$(BINDIR)/stepkit" && \
	echo "installed $(DESTDIR)$(BINDIR)/stepkit -> $(LIBDIR)/stepkit"

uninstall:
	rm -f "$(DESTDIR)$(BINDIR)/stepkit"
	rm -rf "$(DESTDIR)$(LIBDIR)"
