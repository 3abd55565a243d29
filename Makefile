# SPDX-License-Identifier: GPL-2.0-only
#
# This file is two things at once:
#  - a drivers/md-style Kbuild fragment (the lines below), and
#  - when run directly with make, the out-of-tree entry point that builds the
#    modules against KDIR and drives the guest-based test suite.

dm-multipath-y			:= dm-mpath-registry.o dm-path-selector.o dm-hw-handler.o \
				   dm-mpath.o dm-mpath-health.o
dm-multipath-y			+= dm-mpath-stream.o
obj-$(CONFIG_DM_MULTIPATH)	+= dm-multipath.o dm-round-robin.o
obj-$(CONFIG_DM_MULTIPATH)	+= dm-queue-length.o dm-service-time.o \
				   dm-historical-service-time.o
obj-$(CONFIG_DM_MULTIPATH_EMC)	+= dm-emc.o
obj-$(CONFIG_DM_MULTIPATH_ALUA)	+= dm-alua.o
obj-$(CONFIG_DM_MULTIPATH_SCSI_DH)	+= dm-scsi-dh.o

ifeq ($(KERNELRELEASE),)

THIS_MAKEFILE := $(abspath $(firstword $(MAKEFILE_LIST)))
SRCDIR	:= $(patsubst %/,%,$(dir $(THIS_MAKEFILE)))

# The release version, every module's MODULE_VERSION: dm-mpath-release.h
# holds it; dkms.conf and debian/changelog repeat it (packaging/check-versions).
VERSION	:= $(shell sed -n 's/^\#define DM_MPATH_RELEASE[[:space:]]*"\(.*\)"$$/\1/p' \
	$(SRCDIR)/dm-mpath-release.h)

# The kernel to build for.  Building and testing default to the kernel the
# test guest boots; installing defaults to the running kernel.  KVER= on the
# command line wins for both: e.g. make KVER=6.12.118+deb12-amd64 (Debian
# 12's security suite, built here), make KVER=7.3.4+deb13-amd64 (trixie's
# backports, built in the trixie root; see IN_ROOT below).
ifneq ($(filter install uninstall,$(MAKECMDGOALS)),)
KVER	?= $(shell uname -r)
endif
KVER	?= 6.1.0-57-amd64
KDIR	?= /lib/modules/$(KVER)/build
# Extra kbuild flags, e.g. make W=1 or make C=1
KBUILD_ARGS := $(if $(W),W=$(W)) $(if $(C),C=$(C))

# The modules and their config symbols, read from the obj- lines of the
# Kbuild fragment above (continuation lines joined): adding an obj- line is
# all it takes for the build, make install and the Debian package to carry a
# new module; dkms.conf lists them too (packaging/check-versions compares).
OBJ_LINES := $(shell sed -e ':a' -e '/\\$$/N' -e 's/\\\n//' -e 'ta' \
	$(THIS_MAKEFILE) | sed -n 's/^obj-\$$(\(CONFIG_[A-Za-z0-9_]*\))[[:space:]]*+=/\1/p')
KCONFIGS := $(sort $(filter CONFIG_%,$(OBJ_LINES)))
MODULES	:= $(patsubst %.o,%.ko,$(filter %.o,$(OBJ_LINES)))

.PHONY: all modules test-modules emulator fuzzer deps check demo soak bench bench-report \
	check-debug check-kernels clean-modules clean install uninstall deb \
	print-version print-modules print-kconfig dkms-prebuild

# make: build the modules for KVER, nothing else.
all: modules

# Debian 13's kernels (KVER ending in +deb13: trixie's 6.12, backports'
# 7.x) build inside a trixie root, as a trixie admin's DKMS would: their
# kbuild binaries need trixie's libc (scripts/build-in-root, which makes
# and caches the root with scripts/trixie-root).  Bookworm's kernels,
# bookworm-security's 6.12 among them, build here.
IN_ROOT	:= $(if $(findstring +deb13,$(KVER)),$(SRCDIR)/scripts/build-in-root)

modules:
ifneq ($(IN_ROOT),)
	$(IN_ROOT) $(KVER) modules $(KBUILD_ARGS)
else
	$(MAKE) -C $(KDIR) M=$(SRCDIR) $(addsuffix =m,$(KCONFIGS)) \
		$(KBUILD_ARGS) modules
endif

# Test-only modules (e.g. the kernel-log judge self-test).
test-modules:
ifneq ($(IN_ROOT),)
	$(IN_ROOT) $(KVER) test-modules $(KBUILD_ARGS)
else
	$(MAKE) -C $(KDIR) M=$(SRCDIR)/tests/modules $(KBUILD_ARGS) modules
endif

# The emulated CLARiiON (userspace, runs in the guest).
emulator:
	@$(MAKE) -s -C tests/clariion

# The table and message fuzzer (userspace, runs in the guest). Built here:
# a guest that finds it missing or stale compiles it under emulation, which
# on a loaded machine took 212 s of 301's 300 s timeout.
fuzzer:
	@$(MAKE) -s -C tests/fuzz

# The test harness's dependencies (apt; only what is missing).  The targets
# that boot a guest call it first; the build alone never does.
deps:
	@test -x tests/vm/install-deps || { echo "make deps: no tests/vm/install-deps \
here: the test suite is in the source repository, not in this copy" >&2; exit 1; }
	@tests/vm/install-deps --if-missing

# The test suite: every scenario (or T="NNN ...") in one booted guest.
# The install family's scenarios need the tree DKMS built for KVER, natively
# (.build/dkms-KVER, rebuilt when a source changed; for a +deb13 kernel by
# the trixie root's DKMS, as a trixie admin's), and the Debian package
# (.build/deb): for a whole run, or when T selects them.
INSTALL_FAMILY := $(if $(T),$(filter install 7 70 700% 701% 702%,$(T)),all)
check: deps modules test-modules emulator fuzzer \
	$(if $(INSTALL_FAMILY),dkms-prebuild deb)
	@FULL=$(FULL) tests/vm/run-suite $(if $(T),--only "$(T)")

# The kernel matrix: the whole suite on each of Debian's kernels, one after
# the other (KERNELS="KVER ..." chooses); SET=cross: CI's cross-kernel set
# (scenarios marked "# cross-kernel: yes", and the demo) on trixie's 6.12
# and 7.3 (Documentation/kernels.md).
check-kernels:
	@tests/vm/check-kernels $(if $(filter cross,$(SET)),--cross-kernel) $(KERNELS)

dkms-prebuild:
	@packaging/dkms-prebuild $(SRCDIR)/.build/dkms-$(KVER) $(KVER)

# The main job: a multipath map surviving path failures, in a guest.
demo: deps modules
	@tests/vm/run-suite --demo

# Benchmarks against the distro's dm-multipath (QUICK=1: a short smoke run).
bench: deps modules
	@bench/run-bench $(if $(QUICK),--quick)

# Documentation/performance.md and Documentation/perf/*.png from the
# results directories of bench/run-bench (bench/README.md says which;
# OVERHEAD=DIR, FLAKY=DIR and SCALE=DIR choose others than bench/out,
# bench/out-flaky, bench/out-scale).
bench-report:
	@bench/make-report $(if $(OVERHEAD),--overhead $(OVERHEAD)) $(if $(FLAKY),--flaky $(FLAKY)) \
		$(if $(SCALE),--scale $(SCALE))

# Fault-injection soak under verified I/O (DURATION=20m; KERNEL=debug: on
# the debug kernel, with modules built against it by debug/check-debug).
ifeq ($(KERNEL),debug)
soak:
	@debug/check-debug --soak $(or $(DURATION),5m)
else
soak: deps modules test-modules emulator fuzzer
	@tests/soak/run-soak $(if $(DURATION),--duration $(DURATION))
endif

# The whole suite and a short soak on a debug kernel (lockdep, KASAN, ...).
check-debug:
	@debug/check-debug

# Install the modules for KVER (default: the running kernel) where modprobe
# prefers them over the distro's (updates/), and update the module index.
# DESTDIR= stages the tree instead (no depmod then).
MODDIR = $(DESTDIR)/lib/modules/$(KVER)/updates/dm-mpath
DKMSDIR = $(DESTDIR)/lib/modules/$(KVER)/updates/dkms

install:
	@test -d $(KDIR)/include || { echo "make install: no kernel headers \
for $(KVER) at $(KDIR): install linux-headers-$(KVER), or give KVER= \
(and KDIR=)" >&2; exit 1; }
	@if [ -e $(DKMSDIR)/dm-multipath.ko ]; then echo "make install: \
DKMS has installed dm-mpath for $(KVER) ($(DKMSDIR)): remove that first \
(dkms remove dm-mpath/<version> -k $(KVER)), one copy at a time" >&2; \
		exit 1; fi
	$(MAKE) KVER=$(KVER) KDIR=$(KDIR) modules
	@for m in $(MODULES); do \
		v=$$(modinfo -F vermagic $$m | cut -d' ' -f1); \
		[ "$$v" = "$(KVER)" ] || { echo "make install: $$m was built \
for '$$v', not $(KVER): make clean-modules, then make install" >&2; \
		exit 1; }; \
	done
	install -d $(MODDIR)
	install -m 0644 $(MODULES) $(MODDIR)/
	@if [ -n "$(DESTDIR)" ]; then echo "make install: DESTDIR given: no depmod"; \
	else echo depmod -a $(KVER); depmod -a $(KVER); fi

uninstall:
	rm -f $(addprefix $(MODDIR)/,$(MODULES))
	@rmdir $(MODDIR) 2>/dev/null || { [ ! -d $(MODDIR) ] || \
		echo "make uninstall: $(MODDIR) still holds other files:" \
		$$(ls $(MODDIR)) >&2; }
	@if [ -n "$(DESTDIR)" ]; then echo "make uninstall: DESTDIR given: no depmod"; \
	else echo depmod -a $(KVER); depmod -a $(KVER); fi
	@for m in $(MODULES:.ko=); do \
		[ ! -d /sys/module/$$(echo $$m | tr - _) ] || \
		echo "make uninstall: $$m is still loaded (modprobe -r it)"; \
	done

# The Debian source and binary packages (debian/, dpkg-buildpackage -us
# -uc, lintian): .build/deb/.
deb:
	@packaging/build-deb $(SRCDIR)/.build/deb

# For the scenarios and packaging/check-versions (make -s print-...).
print-version:
	@echo $(VERSION)
print-modules:
	@echo $(MODULES:.ko=)
print-kconfig:
	@echo $(addsuffix =m,$(KCONFIGS))

# The kernel modules' build products only (tests/static-checks rebuilds
# with each gate's flags; .build/ holds other runs' results and caches).
# Kbuild's own "M=dir clean" deletes every *.ko below dir, and so the module
# trees staged under .build/ for guests that may be running: remove only
# what the two module builds made, in their own folders.
KBUILD_MADE := *.o *.ko *.mod *.mod.c .*.cmd .*.d modules.order Module.symvers
clean-modules:
	cd $(SRCDIR) && rm -f $(KBUILD_MADE)
	cd $(SRCDIR)/tests/modules && rm -f $(KBUILD_MADE)

clean: clean-modules
	$(MAKE) -C tests/clariion clean
	rm -rf .build

endif
