/* Open file descriptors: /proc/PID/fd (link targets) and /proc/PID/fdinfo
 * (flags, position, type-specific lines). */
#ifndef PS_PROC_FD_H
#define PS_PROC_FD_H

#include "reads.h"

#include <stdbool.h>
#include <stddef.h>

enum proc_fd_type {
	FDT_FILE, FDT_DIR, FDT_DEVICE, FDT_PIPE, FDT_FIFO, FDT_SOCKET, FDT_EVENTFD, FDT_EPOLL,
	FDT_TIMERFD, FDT_SIGNALFD, FDT_INOTIFY, FDT_FANOTIFY, FDT_MEMFD, FDT_PIDFD, FDT_ANON,
	FDT_OTHER, FDT_COUNT
};

struct proc_fdinfo {
	unsigned long long pos;
	unsigned flags;          /* open flags (octal in the file) */
	int mnt_id;
	char extra[96];          /* "count=3", "watches=2 (fd 4,5)", "ticks=0"... */
};

struct proc_fd {
	int fd;
	enum proc_fd_type type;
	bool deleted;            /* target ends in " (deleted)" */
	unsigned long long ino;  /* socket:[N] / pipe:[N]; 0 otherwise */
	char target[256];        /* link text, raw (hostile) */
	struct proc_fdinfo info;
	int info_err;            /* 0, -EAGAIN not read yet, or -errno (fd closed meanwhile) */
};

/* With PROC_FD_CACHED, an fd number that was open at the previous read
 * keeps its link target and type, except for one in PROC_FD_RECHECK of
 * them (by fd number, in turn), which is read again: an fd closed and
 * reopened to another file under the same number shows its new target
 * within PROC_FD_RECHECK reads. New numbers are always read; closed
 * numbers are always noticed (getdents). The net table is likewise
 * re-read only when a socket inode is unknown or every PROC_FD_RECHECK
 * reads (socket states). */
#define PROC_FD_RECHECK 4

struct proc_fd_list {
	struct proc_fd *v;
	size_t n, cap;
	size_t count[FDT_COUNT];
	char *io;                /* getdents buffer */
	struct proc_fd *prev;    /* the previous read (PROC_FD_CACHED) */
	size_t prev_cap;
	unsigned round;          /* reads so far: which fds PROC_FD_CACHED re-checks */
};

const char *proc_fd_type_name(enum proc_fd_type t);
/* Classify a link target ("socket:[123]", "anon_inode:[eventfd]", a path)
 * without touching the system; paths give FDT_FILE (the reader refines them
 * to dir/device/fifo with stat). */
enum proc_fd_type proc_fd_classify(const char *target, bool *deleted, unsigned long long *ino);
int proc_fdinfo_parse(const char *buf, size_t len, struct proc_fdinfo *out);
/* "rw,append,nonblock,cloexec" */
const char *proc_fd_flags_str(unsigned flags, char *buf, size_t size);
/* Read every fd of the process behind dirfd (a /proc/PID dirfd): number,
 * link target and type; with PROC_FD_INFO also each fdinfo (flags and
 * position: one more open/read/close per fd, the bulk of the cost), else
 * info_err is -EAGAIN until proc_fd_read_info. Returns 0 or -errno
 * (-EACCES: no ptrace-read access; -ENOENT: gone). Sorted by fd. */
#define PROC_FD_INFO 1u
/* Reuse the previous read of the same list (see PROC_FD_RECHECK). The list
 * must always be read from the same process. */
#define PROC_FD_CACHED 2u
PS_READS int proc_fd_read(int dirfd, struct proc_fd_list *out, unsigned flags);
/* fdinfo of one entry of a list read from the same dirfd. */
PS_READS int proc_fd_read_info(int dirfd, struct proc_fd *f);
void proc_fd_list_free(struct proc_fd_list *l);

struct proc_net;
/* Resolve the list's sockets: read the net files of the process's network
 * namespace until every socket inode of l is found. When net already knows
 * every socket of l (from the previous call), it is kept, and re-read only
 * every PROC_FD_RECHECK calls. */
PS_READS int proc_fd_read_net(int dirfd, const struct proc_fd_list *l, struct proc_net *net);
/* What the fd points at, for people: the path (with " (deleted)"), or for a
 * socket "tcp 127.0.0.1:80 -> 127.0.0.1:4242 ESTABLISHED" resolved through
 * net (may be NULL), plus fdinfo extras ("count=3"). Raw: escape to show. */
const char *proc_fd_describe(const struct proc_fd *f, const struct proc_net *net, char *buf, size_t size);

#endif
