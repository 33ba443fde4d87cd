/* /proc/{stat,meminfo,loadavg,uptime}.
 * fuzz-seeds: sys-*.txt */
#include "fuzz.h"
#include "proc/sysinfo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct sys_stat st;
	char *p = fuzz_copy(data, size);
	struct sys_meminfo mi;
	struct sys_loadavg la;
	double u, i;
	char buf[64];

	sys_stat_parse(p, size, &st);
	sys_meminfo_parse(p, size, &mi);
	sys_loadavg_parse(p, size, &la);
	if (sys_uptime_parse(p, size, &u, &i) == 0)
		sys_fmt_uptime(u, buf, sizeof(buf));
	free(p);
	return 0;
}
