# SPDX-License-Identifier: GPL-2.0
#
# rocepath: kernel module, CLI and daemon. See README.md.
#   make            module for the running kernel (or KDIR=), CLI and daemon
#   make modules-all  the module against both test kernels' headers
#   make check      every test; last line "N passed, N failed, N skipped"
#   make demo       two soft-RoCE guests, rocepathd, RDMA traffic
#   make bench      benchmarks
#   make gen        regenerate UAPI and policy code from the YNL spec

TOP := $(CURDIR)
CACHE ?= $(TOP)/.cache
-include $(CACHE)/kernels.env

KREL ?= $(shell uname -r)
KDIR ?= /lib/modules/$(KREL)/build
PREFIX ?= /usr
SBINDIR ?= $(PREFIX)/sbin
DESTDIR ?=

.PHONY: all module modules-all userspace gen gen-check deps check demo bench \
	install uninstall clean

all: module userspace

# Builds for the running kernel only where its headers exist; on a host
# without them (a CI box on a foreign kernel) use KDIR= or modules-all.
module:
	@if [ -d "$(KDIR)" ]; then \
		$(MAKE) -C "$(KDIR)" M="$(TOP)" modules; \
	else \
		echo "module: no kernel build tree at $(KDIR); skipping (set KDIR= or run 'make modules-all')"; \
	fi

# One build tree per test kernel, so both can coexist.
modules-all: deps
	@set -e; for rel in $(KRELS); do \
		scripts/kbuild.sh "$$rel"; \
	done

userspace:
	$(MAKE) -C daemon

gen: deps
	scripts/ynl-gen.sh

gen-check: deps
	scripts/ynl-gen.sh --check

deps:
	@scripts/deps.sh

check: deps
	scripts/check.sh

demo: deps
	scripts/demo.sh

bench: deps
	scripts/bench.sh

install: all
	install -D -m 0755 daemon/rocepath $(DESTDIR)$(SBINDIR)/rocepath
	install -D -m 0755 daemon/rocepathd/rocepathd $(DESTDIR)$(SBINDIR)/rocepathd
	@if [ -f rocepath.ko ] && [ -z "$(DESTDIR)" ]; then \
		$(MAKE) -C "$(KDIR)" M="$(TOP)" modules_install && depmod -a $(KREL); \
	fi

clean:
	-[ -d "$(KDIR)" ] && $(MAKE) -C "$(KDIR)" M="$(TOP)" clean
	$(MAKE) -C daemon clean
	rm -rf build
