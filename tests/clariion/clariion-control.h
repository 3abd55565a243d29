/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Control protocol of the emulated CLARiiON (see clariion-control.c): one
 * text line in, a text reply out.  Apart from the SCSI side
 * (clariion-core.h) so that the wire format of the test controls and the
 * array's behaviour change independently.
 */
#ifndef CLARIION_CONTROL_H
#define CLARIION_CONTROL_H

#include <stddef.h>

#include "clariion-core.h"

/*
 * One control command line ("owner B", "counters", ...).  Writes the reply
 * (one or more '\n'-terminated lines) to out.  Returns 0 if the command was
 * understood and done, -1 otherwise (out then holds "error: ...").
 */
int emu_control(struct emu *e, const char *line, char *out, size_t outlen);

#endif
