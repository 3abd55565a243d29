// SPDX-License-Identifier: GPL-2.0-only
/* Placeholder: replaced by the core implementation. */
