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

ifeq ($(KERNELRELEASE),)

KVER	?= 6.1.0-57-amd64
KDIR	?= /lib/modules/$(KVER)/build
SRCDIR	:= $(CURDIR)
# Extra kbuild flags, e.g. make W=1 or make C=1
KBUILD_ARGS := $(if $(W),W=$(W)) $(if $(C),C=$(C))

MODULES	:= dm-multipath.ko dm-round-robin.ko dm-emc.ko dm-alua.ko \
	   dm-queue-length.ko dm-service-time.ko dm-historical-service-time.ko

.PHONY: all modules test-modules emulator deps check demo soak bench \
	check-debug clean-modules clean

all: modules

modules:
	@tests/vm/install-deps --if-missing
	$(MAKE) -C $(KDIR) M=$(SRCDIR) CONFIG_DM_MULTIPATH=m \
		CONFIG_DM_MULTIPATH_EMC=m CONFIG_DM_MULTIPATH_ALUA=m \
		$(KBUILD_ARGS) modules

# Test-only modules (e.g. the kernel-log judge self-test).
test-modules:
	$(MAKE) -C $(KDIR) M=$(SRCDIR)/tests/modules $(KBUILD_ARGS) modules

# The emulated CLARiiON (userspace, runs in the guest).
emulator:
	@$(MAKE) -s -C tests/clariion

deps:
	@tests/vm/install-deps

# The test suite: every scenario (or T="NNN ...") in one booted guest.
check: modules test-modules emulator
	@FULL=$(FULL) tests/vm/run-suite $(if $(T),--only "$(T)")

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
soak: modules test-modules emulator
	@tests/soak/run-soak $(if $(DURATION),--duration $(DURATION))
endif

# The whole suite and a short soak on a debug kernel (lockdep, KASAN, ...).
check-debug:
	@debug/check-debug

# The kernel modules' build products only (tests/static-checks rebuilds
# with each gate's flags; .build/ holds other runs' results and caches).
clean-modules:
	$(MAKE) -C $(KDIR) M=$(SRCDIR) clean
	$(MAKE) -C $(KDIR) M=$(SRCDIR)/tests/modules clean

clean: clean-modules
	$(MAKE) -C tests/clariion clean
	rm -rf .build

endif
