/* Capability sets (CapEff & co in /proc/PID/status) decoded to names. */
#ifndef PS_PROC_CAPS_H
#define PS_PROC_CAPS_H

#include <stddef.h>
#include <stdint.h>

/* "cap_sys_ptrace" for 19; NULL for a bit with no known name. */
const char *proc_cap_name(int bit);
/* Names of the set bits, comma-separated ("cap_chown,cap_kill"); "none" for
 * 0, "all" when every known capability is set, "all except cap_x,cap_y"
 * when most are (unknown bits are written as "cap_NN"). Returns strlen(buf). */
size_t proc_caps_str(uint64_t set, char *buf, size_t size);

#endif
