# SPDX-License-Identifier: GPL-2.0
#
# rocepath: kernel module, CLI and daemon. See README.md.
#   make            module for the running kernel (or KDIR=), CLI and daemon
#   make modules-all  the module against both test kernels' headers
#   make check      every test (an arm64 smoke subset last); last line
#                   "N passed, N failed, N skipped"
#   make check-all  the same with every VM test on every test kernel
#   make check-debug  every VM test on a KASAN/lockdep/kmemleak kernel,
#                   the unload stress and fuzzing (slow: own lane)
#   make check-arm64  the module, CLI and daemon cross-built for arm64 and
#                   tested in arm64 guests (Debian's arm64 6.1 and 6.12)
#   make fuzz       1,000,000 fuzzed netlink messages (500,000 per phase), debug kernel
#   make demo       two soft-RoCE guests, rocepathd, RDMA traffic
#   make bench      benchmarks
#   make deb        Debian packages rocepath, rocepath-dkms, rocepath-slurm
#   make check-deb  install them into a clean root: DKMS, unit, upgrade, purge
#   make check-slurm  real Slurm in two guests drives the placement
#   make gen        regenerate UAPI and policy code from the YNL spec

TOP := $(CURDIR)
CACHE ?= $(TOP)/.cache
-include $(CACHE)/kernels.env

KREL ?= $(shell uname -r)
KDIR ?= /lib/modules/$(KREL)/build
PREFIX ?= /usr
SBINDIR ?= $(PREFIX)/sbin
DESTDIR ?=
SYSCONFDIR ?= /etc
UNITDIR ?= /lib/systemd/system
MANDIR ?= $(PREFIX)/share/man
DOCDIR ?= $(PREFIX)/share/doc/rocepath

.PHONY: all module modules-all userspace gen gen-check deps deps-arm64 check check-arm64 check-debug fuzz demo bench \
	install install-files deb check-deb check-slurm check-fabric check-all uninstall dkms-src dkms-install dkms-uninstall clean

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

# make check ends with the arm64 smoke subset: these tests on Debian's
# arm64 6.12 (scripts/check.sh, stage 5).
ARM64_SMOKE ?= module_btf,pin_wire,flow_limit
# Two lanes: 6.1's shared boot and the arm64 smoke subset at nice 10
# beside 6.12's (Documentation/testing.rst, "Two lanes").
check: deps
	ROCEPATH_ARM64_SMOKE=$(ARM64_SMOKE) \
		ROCEPATH_CHECK_LANES=$${ROCEPATH_CHECK_LANES:-2} scripts/check.sh

check-debug: deps
	scripts/check-debug.sh

deps-arm64: deps
	@scripts/deps-arm64.sh

# The arm64 lane: what pins, counts and paces, on both arm64 kernels
# (Documentation/testing.rst, "The arm64 lane").
ARM64_TESTS ?= module_load,module_btf,rdma_traffic,pin_wire,pin_churn,pin_slots,pin_unload,flow_counters,dcqcn_np,dcqcn_rp,daemon_pins,nl_fuzz
check-arm64: deps-arm64
	ROCEPATH_ALL_KERNELS=1 scripts/check.sh --arch arm64 --only $(ARM64_TESTS)

# The long fuzzing run on the debug kernel: 500,000 messages per phase
# (root and unprivileged), 10^6 in all, about 3.5 hours under TCG; in
# parts with NL_FUZZ_START and a smaller NL_FUZZ_COUNT (testing.rst).
fuzz: deps
	NL_FUZZ_COUNT=$${NL_FUZZ_COUNT:-500000} ROCEPATH_VM_TIMEOUT=$${ROCEPATH_VM_TIMEOUT:-30000} \
		scripts/check-debug.sh --only nl_fuzz

demo: deps
	scripts/demo.sh

bench: deps
	scripts/bench.sh

install: all
	$(MAKE) install-files
	@if [ -f rocepath.ko ] && [ -z "$(DESTDIR)" ]; then \
		$(MAKE) -C "$(KDIR)" M="$(TOP)" modules_install && depmod -a $(KREL); \
	fi

# Everything but the module, from an existing build (the Debian package).
install-files:
	install -D -m 0755 daemon/rocepath $(DESTDIR)$(SBINDIR)/rocepath
	install -D -m 0755 daemon/rocepathd/rocepathd $(DESTDIR)$(SBINDIR)/rocepathd
	install -D -m 0644 scripts/systemd/rocepathd.service \
		$(DESTDIR)$(UNITDIR)/rocepathd.service
	install -D -m 0644 scripts/systemd/rocepath-modules-load.conf \
		$(DESTDIR)/usr/lib/modules-load.d/rocepath.conf
	install -D -m 0644 examples/rocepathd.conf \
		$(DESTDIR)$(DOCDIR)/examples/rocepathd.conf
	install -D -m 0644 examples/grafana/rocepath.json \
		$(DESTDIR)$(DOCDIR)/examples/grafana-rocepath.json
	@[ -e $(DESTDIR)$(SYSCONFDIR)/rocepath/rocepathd.conf ] || \
		install -D -m 0644 examples/rocepathd.conf \
			$(DESTDIR)$(SYSCONFDIR)/rocepath/rocepathd.conf
	for m in Documentation/man/*.8; do \
		install -D -m 0644 $$m $(DESTDIR)$(MANDIR)/man8/$$(basename $$m); \
	done

uninstall:
	rm -f $(DESTDIR)$(SBINDIR)/rocepath $(DESTDIR)$(SBINDIR)/rocepathd
	rm -f $(DESTDIR)$(UNITDIR)/rocepathd.service
	rm -f $(DESTDIR)/usr/lib/modules-load.d/rocepath.conf
	rm -rf $(DESTDIR)$(DOCDIR)
	for m in Documentation/man/*.8; do rm -f $(DESTDIR)$(MANDIR)/man8/$$(basename $$m); done
	@echo "kept $(DESTDIR)$(SYSCONFDIR)/rocepath/ (configuration)"

# DKMS: the module sources (Kbuild, kmod/, include/, dkms.conf) under
# /usr/src/rocepath-<version>, rebuilt by DKMS for every installed kernel.
DKMS_VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' $(TOP)/dkms.conf)
DKMS_SRC ?= $(DESTDIR)/usr/src/rocepath-$(DKMS_VERSION)

dkms-src:
	rm -rf "$(DKMS_SRC)"
	install -d "$(DKMS_SRC)/kmod"
	install -m 0644 Kbuild dkms.conf "$(DKMS_SRC)/"
	install -m 0644 kmod/*.c kmod/*.h "$(DKMS_SRC)/kmod/"
	cd include && find . -name '*.h' -exec install -D -m 0644 {} "$(DKMS_SRC)/include/{}" \;

dkms-install: dkms-src
	dkms add rocepath/$(DKMS_VERSION)
	dkms build rocepath/$(DKMS_VERSION)
	dkms install rocepath/$(DKMS_VERSION)

dkms-uninstall:
	-dkms remove rocepath/$(DKMS_VERSION) --all
	rm -rf "$(DKMS_SRC)"

# Debian packages rocepath, rocepath-dkms, rocepath-slurm into build/deb/ (scripts/deb.sh).
deb:
	scripts/deb.sh build

# Install both into a clean root, DKMS build, unit verify, upgrade, purge.
check-deb:
	scripts/deb.sh check

# The fabric selftests on every test kernel (make check runs them on 6.12,
# fabric_bgp not at all).
check-fabric: deps
	ROCEPATH_ALL_KERNELS=1 scripts/check.sh --only fabric_basic,fabric_bgp,fabric_balance,fabric_probe,fabric_congestion

# make check with no test held to 6.12: every VM selftest, fabric_bgp
# included, on every test kernel (about twice make check's VM time).
check-all: deps
	ROCEPATH_ALL_KERNELS=1 scripts/check.sh

# Real Slurm (slurmctld, slurmd, munge from Debian) in two guests running
# the placement prolog/epilog (selftests/slurm_job.sh, about 95 s).
check-slurm: deps
	@scripts/apt-missing.sh check-slurm slurmctld slurmd munge
	scripts/vm/run.sh -k 6.12 selftests/slurm_job.sh

clean:
	-[ -d "$(KDIR)" ] && $(MAKE) -C "$(KDIR)" M="$(TOP)" clean
	$(MAKE) -C daemon clean
	rm -rf build
