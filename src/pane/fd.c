/* The FDs pane: every descriptor, its type, flags, position and target;
 * sockets resolved through /proc/PID/net. */
#include "pane/pane.h"
#include "i18n.h"
#include "out/escape.h"
#include "i18n.h"
#include "util.h"
#include "proc/fd.h"
#include "proc/net.h"

#include <stdio.h>
#include <stdlib.h>

static int read_fds(struct pane_show *s, struct proc_fd_list *l, struct proc_net *net, bool all_info, size_t info_rows)
{
	int err = proc_fd_read(s->dirfd, l, all_info ? PROC_FD_INFO : PROC_FD_CACHED);
	if (err)
		return err;
	for (size_t i = 0; !all_info && i < l->n && i < info_rows; i++)
		proc_fd_read_info(s->dirfd, &l->v[i]);
	proc_fd_read_net(s->dirfd, l, net);
	return 0;
}

static void time_fds(struct pane_show *s, struct proc_fd_list *l, struct proc_net *net, bool all_info, const char *label)
{
	double *times = calloc((size_t)s->repeat, sizeof(double));
	if (!times)
		return;
	for (int i = 0; i < s->repeat; i++) {
		uint64_t t0 = now_ns();
		read_fds(s, l, net, all_info, 50);
		times[i] = pane_ms_since(t0);
	}
	pane_report_times(label, times, s->repeat, l->n, _("fds"));
	free(times);
	proc_fd_list_free(l); /* the next reader starts afresh */
	proc_net_free(net);
}

static void show_fd(struct pane_show *s)
{
	struct proc_fd_list l = { 0 };
	struct proc_net net = { 0 };
	int err;

	if (pane_show_zombie(s, &pane_desc_fd))
		return;
	if (s->repeat) {
		time_fds(s, &l, &net, false, _("fd pane (links, types, sockets; fdinfo of 50 visible rows)"));
		time_fds(s, &l, &net, true, _("fd with every fdinfo (batch output)"));
	}
	err = read_fds(s, &l, &net, true, 0);
	if (err) {
		pane_show_error(s, &pane_desc_fd, err, "fd");
		goto out;
	}
	if (s->json) {
		struct json_object *o = json_object_new_object(), *cnt = json_object_new_object();
		struct json_object *arr = json_object_new_array();
		out_json_int(o, "count", (long long)l.n);
		for (int t = 0; t < FDT_COUNT; t++)
			if (l.count[t])
				out_json_int(cnt, proc_fd_type_name((enum proc_fd_type)t), (long long)l.count[t]);
		json_object_object_add(o, "by_type", cnt);
		for (size_t i = 0; i < l.n; i++) {
			const struct proc_fd *f = &l.v[i];
			struct json_object *e = json_object_new_object();
			char fl[128], desc[512];
			out_json_int(e, "fd", f->fd);
			out_json_str(e, "type", proc_fd_type_name(f->type));
			out_json_str(e, "target", f->target);
			out_json_str(e, "description", proc_fd_describe(f, &net, desc, sizeof(desc)));
			out_json_bool(e, "deleted", f->deleted);
			if (!f->info_err) {
				out_json_str(e, "flags", proc_fd_flags_str(f->info.flags, fl, sizeof(fl)));
				out_json_int(e, "flags_raw", f->info.flags);
				out_json_int(e, "pos", (long long)f->info.pos);
				out_json_int(e, "mnt_id", f->info.mnt_id);
				if (f->info.extra[0])
					out_json_str(e, "extra", f->info.extra);
			}
			const struct proc_sock *sk = f->type == FDT_SOCKET ? proc_net_find(&net, f->ino) : NULL;
			if (f->ino)
				out_json_int(e, "inode", (long long)f->ino);
			if (sk && sk->ambiguous)
				out_json_bool(e, "socket_ambiguous", 1);
			else if (sk) {
				struct json_object *so = json_object_new_object();
				out_json_str(so, "proto", proc_net_proto_name(sk->proto));
				if (sk->proto == NET_NETLINK)
					out_json_str(so, "netlink_family", proc_netlink_family(sk));
				if (sk->proto == NET_UNIX) {
					out_json_str(so, "unix_type", proc_sock_unix_type(sk));
					if (sk->peer_ino)
						out_json_int(so, "peer_inode", (long long)sk->peer_ino);
					if (sk->peer_fd >= 0)
						out_json_int(so, "peer_fd", sk->peer_fd);
				}
				out_json_str(so, "local", sk->local);
				out_json_str(so, "peer", sk->peer[0] ? sk->peer : NULL);
				out_json_str(so, "state", sk->proto == NET_NETLINK ? NULL : proc_sock_state(sk));
				json_object_object_add(e, "socket", so);
			}
			json_object_array_add(arr, e);
		}
		json_object_object_add(o, "fds", arr);
		json_object_object_add(s->jpanes, "fd", o);
		goto out;
	}
	pane_show_section(s, &pane_desc_fd, NULL);
	printf("%5s %-8s %-22s %12s  %s\n", "FD", "TYPE", "FLAGS", "POS", "TARGET");
	for (size_t i = 0; i < l.n; i++) {
		const struct proc_fd *f = &l.v[i];
		char fl[128], desc[512];
		printf("%5d %-8s %-22s %12llu  %s\n", f->fd, proc_fd_type_name(f->type),
		       f->info_err ? "?" : proc_fd_flags_str(f->info.flags, fl, sizeof(fl)), f->info.pos,
		       esc(proc_fd_describe(f, &net, desc, sizeof(desc))));
	}
	printf(P_("%zu fd:", "%zu fds:", l.n), l.n);
	for (int t = 0; t < FDT_COUNT; t++)
		if (l.count[t])
			printf(" %s %zu", proc_fd_type_name((enum proc_fd_type)t), l.count[t]);
	printf("\n");
out:
	proc_fd_list_free(&l);
	proc_net_free(&net);
}

const struct pane_desc pane_desc_fd = {
	.name = "fd",
	.aliases = { "fds" },
	.title = N_("FDs"),
	.summary = N_("open file descriptors and sockets"),
	.source = N_("/proc/PID/fd + fdinfo, sockets via sock_diag (NETLINK_SOCK_DIAG; else /proc/PID/net/{unix,udp,udp6,netlink,tcp,tcp6}); needs ptrace-read access"),
	.file = "fd",
	.refresh_ms = 900,
	.help = "pane-fd",
	.show = show_fd,
};
