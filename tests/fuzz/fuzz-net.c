/* /proc/PID/net/{tcp,tcp6,udp,udp6,unix,netlink} text, then lookups and
 * the fd descriptions built from what was parsed.
 * fuzz-seeds: detail/net-*.txt */
#include "fuzz.h"
#include "proc/fd.h"
#include "proc/net.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *p = fuzz_copy(data, size);
	struct proc_net n = { 0 };
	char d[512];

	for (int proto = 0; proto < NET_PROTO_COUNT; proto++)
		proc_net_parse(p, size, (enum proc_net_proto)proto, &n);
	proc_net_index(&n);
	for (size_t i = 0; i < n.n; i++) {
		struct proc_fd f = { .fd = 3, .type = FDT_SOCKET, .ino = n.v[i].ino };
		proc_fd_describe(&f, &n, d, sizeof(d));
		proc_sock_state(&n.v[i]);
	}
	proc_net_free(&n);
	free(p);
	return 0;
}
