# SPDX-License-Identifier: GPL-2.0-only
#
# This file is two things at once:
#  - a drivers/md-style Kbuild fragment (the three lines below), and
#  - when run directly with make, the out-of-tree entry point that builds the
#    modules against KDIR and drives the guest-based test suite.

dm-multipath-y			:= dm-mpath-registry.o dm-path-selector.o dm-hw-handler.o \
				   dm-mpath.o
obj-$(CONFIG_DM_MULTIPATH)	+= dm-multipath.o dm-round-robin.o
obj-$(CONFIG_DM_MULTIPATH)	+= dm-queue-length.o dm-service-time.o \
				   dm-historical-service-time.o
obj-$(CONFIG_DM_MULTIPATH_EMC)	+= dm-emc.o
obj-$(CONFIG_DM_MULTIPATH_ALUA)	+= dm-alua.o
obj-$(CONFIG_DM_MULTIPATH_SCSI_DH)	+= dm-scsi-dh.o

ifeq ($(KERNELRELEASE),)

# The package version (dkms.conf, make deb and CHANGELOG.md read it here).
VERSION	:= 1.0.4

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
SRCDIR	:= $(CURDIR)
# Extra kbuild flags, e.g. make W=1 or make C=1
KBUILD_ARGS := $(if $(W),W=$(W)) $(if $(C),C=$(C))

# The modules and their config symbols, read from the obj- lines of the
# Kbuild fragment above (continuation lines joined): adding an obj- line is
# all it takes for the build, make install, dkms.conf and the Debian package
# to carry a new module.
THIS_MAKEFILE := $(abspath $(firstword $(MAKEFILE_LIST)))
OBJ_LINES := $(shell sed -e ':a' -e '/\\$$/N' -e 's/\\\n//' -e 'ta' \
	$(THIS_MAKEFILE) | sed -n 's/^obj-\$$(\(CONFIG_[A-Za-z0-9_]*\))[[:space:]]*+=/\1/p')
KCONFIGS := $(sort $(filter CONFIG_%,$(OBJ_LINES)))
MODULES	:= $(patsubst %.o,%.ko,$(filter %.o,$(OBJ_LINES)))

.PHONY: all modules test-modules emulator fuzzer deps check demo soak bench \
	check-debug clean-modules clean install uninstall deb \
	print-version print-modules print-kconfig print-dkms dkms-prebuild

all: modules

# Debian 13's kernels (KVER ending in +deb13: trixie's 6.12, backports'
# 7.x) build inside a trixie root, as a trixie admin's DKMS would: their
# kbuild binaries need trixie's libc (scripts/build-in-root, which makes
# and caches the root with scripts/trixie-root).  Bookworm's kernels,
# bookworm-security's 6.12 among them, build here.
IN_ROOT	:= $(if $(findstring +deb13,$(KVER)),$(SRCDIR)/scripts/build-in-root)

# NO_DEPS=1: build only (make install, packaging), without installing the
# test harness's dependencies.
modules:
	@$(if $(NO_DEPS),true,tests/vm/install-deps --if-missing)
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

deps:
	@tests/vm/install-deps

# The test suite: every scenario (or T="NNN ...") in one booted guest.
# The install family's DKMS scenario (700) needs the tree DKMS built here,
# natively (.build/dkms, rebuilt when a source changed): for a whole run,
# or when T selects it.
DKMS_PREBUILD := $(if $(T),$(filter install 7 70 700%,$(T)),all)
check: modules test-modules emulator fuzzer $(if $(DKMS_PREBUILD),dkms-prebuild)
	@FULL=$(FULL) tests/vm/run-suite $(if $(T),--only "$(T)")

dkms-prebuild:
	@packaging/dkms-prebuild $(SRCDIR)/.build/dkms $(KVER)

# The main job: a multipath map surviving path failures, in a guest.
demo: modules
	@tests/vm/run-suite --demo

# Benchmarks against the distro's dm-multipath (QUICK=1: a short smoke run).
bench: modules
	@bench/run-bench $(if $(QUICK),--quick)

# Fault-injection soak under verified I/O (DURATION=20m; KERNEL=debug: on
# the debug kernel, with modules built against it by debug/check-debug).
ifeq ($(KERNEL),debug)
soak:
	@debug/check-debug --soak $(or $(DURATION),5m)
else
soak: modules test-modules emulator fuzzer
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
	$(MAKE) NO_DEPS=1 KVER=$(KVER) KDIR=$(KDIR) modules
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

# A Debian package that installs the source under /usr/src and has DKMS
# build it for every kernel with headers (and each new one): .build/deb/.
deb:
	@packaging/mkdeb $(VERSION) $(SRCDIR)/.build/deb

# For dkms.conf and packaging/mkdeb (make -s print-...); print-dkms is all
# three in one call (DKMS reads dkms.conf several times per command).
print-version:
	@echo $(VERSION)
print-modules:
	@echo $(MODULES:.ko=)
print-kconfig:
	@echo $(addsuffix =m,$(KCONFIGS))
print-dkms: print-version print-kconfig print-modules

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
