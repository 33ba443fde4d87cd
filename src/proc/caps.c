/* Capability names, from linux/capability.h (Linux 6.1). */
#include "proc/caps.h"
#include "i18n.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static const char *const names[] = {
	[0] = "cap_chown",
	[1] = "cap_dac_override",
	[2] = "cap_dac_read_search",
	[3] = "cap_fowner",
	[4] = "cap_fsetid",
	[5] = "cap_kill",
	[6] = "cap_setgid",
	[7] = "cap_setuid",
	[8] = "cap_setpcap",
	[9] = "cap_linux_immutable",
	[10] = "cap_net_bind_service",
	[11] = "cap_net_broadcast",
	[12] = "cap_net_admin",
	[13] = "cap_net_raw",
	[14] = "cap_ipc_lock",
	[15] = "cap_ipc_owner",
	[16] = "cap_sys_module",
	[17] = "cap_sys_rawio",
	[18] = "cap_sys_chroot",
	[19] = "cap_sys_ptrace",
	[20] = "cap_sys_pacct",
	[21] = "cap_sys_admin",
	[22] = "cap_sys_boot",
	[23] = "cap_sys_nice",
	[24] = "cap_sys_resource",
	[25] = "cap_sys_time",
	[26] = "cap_sys_tty_config",
	[27] = "cap_mknod",
	[28] = "cap_lease",
	[29] = "cap_audit_write",
	[30] = "cap_audit_control",
	[31] = "cap_setfcap",
	[32] = "cap_mac_override",
	[33] = "cap_mac_admin",
	[34] = "cap_syslog",
	[35] = "cap_wake_alarm",
	[36] = "cap_block_suspend",
	[37] = "cap_audit_read",
	[38] = "cap_perfmon",
	[39] = "cap_bpf",
	[40] = "cap_checkpoint_restore",
};

#define NCAPS ((int)(sizeof(names) / sizeof(names[0])))

const char *proc_cap_name(int bit)
{
	return bit >= 0 && bit < NCAPS ? names[bit] : NULL;
}

size_t proc_caps_str(uint64_t set, char *buf, size_t size)
{
	uint64_t all = NCAPS >= 64 ? ~0ull : (1ull << NCAPS) - 1;
	size_t len = 0;

	if (!size)
		return 0;
	buf[0] = '\0';
	if (!set)
		return (size_t)snprintf(buf, size, "%s", _("none"));
	if ((set & all) == all && !(set & ~all))
		return (size_t)snprintf(buf, size, "%s", _("all"));
	/* Mostly full (root minus a few): name what is missing instead. */
	bool except = !(set & ~all) && __builtin_popcountll(set) > NCAPS / 2;
	char list[1024];
	list[0] = '\0';
	for (int b = 0; b < 64; b++) {
		char tmp[16];
		const char *n;
		if (except ? (b >= NCAPS || (set >> b & 1)) : !(set >> b & 1))
			continue;
		n = proc_cap_name(b);
		if (!n) {
			snprintf(tmp, sizeof(tmp), "cap_%d", b);
			n = tmp;
		}
		int w = snprintf(list + len, sizeof(list) - len, "%s%s", len ? "," : "", n);
		if (w < 0 || (size_t)w >= sizeof(list) - len) {
			list[len] = '\0';
			break;
		}
		len += (size_t)w;
	}
	/* one message, so that a language puts the list where it goes */
	if (except)
		snprintf(buf, size, _("all except %s"), list);
	else
		snprintf(buf, size, "%s", list);
	return strlen(buf);
}
