/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The release version of these modules: the MODULE_VERSION of each of them
 * (modinfo -F version, /sys/module/<module>/version), which the kernel's
 * own dm-multipath and selectors do not have.  The Makefile reads it from
 * here; dkms.conf and debian/changelog repeat it (packaging/check-versions
 * compares them).  Not the multipath target's version (dmsetup
 * targets), which names the in-kernel grammar the target implements.
 */
#ifndef DM_MPATH_RELEASE_H
#define DM_MPATH_RELEASE_H

#define DM_MPATH_RELEASE "1.1.0"

#endif
