/* tui-idle PANE-PID TTY [CAP-MS]: wait until the program in a tmux pane has
 * taken in every key sent to it and sits waiting for more (tests/lib.sh's
 * tui_keys and tui_start call it; tests/README).
 *
 * Idle is: nothing left in TTY's input queue (TIOCINQ), and every process
 * of the pane (PANE-PID and its descendants) that has TTY as its fd 0 has
 * its main thread asleep (S; also t, T, Z: it will not read) -- and while a
 * program has the terminal in non-canonical mode (curses), asleep waiting
 * for input or for a child (poll, select, read, wait...), not in a sleep of
 * its own (pscope's first scan sleeps 100 ms before it draws). It must hold
 * for IDLE_MS in a row: a key tmux has just written may still be on its way
 * through the kernel's tty buffer, and an Esc waits 25 ms in ncurses for
 * the rest of a sequence, both invisible from here. A pane that has gone
 * is idle. Exits 0 once idle, 1 after CAP-MS (default 10000) with the busy
 * process on stderr. */
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#define STEP_MS 10
#define IDLE_MS 60
#define MAX_PIDS 256

static char why[256];

static long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/* The pane's processes: pid and its descendants (through each thread's
 * children file), at most MAX_PIDS. */
static int descendants(int pid, int *out, int n)
{
	char path[64];
	DIR *d;
	struct dirent *e;

	if (n >= MAX_PIDS)
		return n;
	out[n++] = pid;
	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	d = opendir(path);
	if (!d)
		return n;
	while ((e = readdir(d))) {
		char cpath[300], buf[4096], *p, *end;
		if (e->d_name[0] == '.')
			continue;
		snprintf(cpath, sizeof(cpath), "/proc/%d/task/%s/children", pid, e->d_name);
		int fd = open(cpath, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		ssize_t k = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		buf[k > 0 ? k : 0] = '\0';
		for (p = buf; *p; p = end) {
			long c = strtol(p, &end, 10);
			if (end == p)
				break;
			n = descendants((int)c, out, n);
		}
	}
	closedir(d);
	return n;
}

/* The system calls of a program waiting for input or for a child. */
static int waits_for_input(long nr)
{
	static const long calls[] = {
		SYS_read, SYS_pselect6, SYS_ppoll, SYS_epoll_pwait, SYS_waitid,
#ifdef SYS_poll
		SYS_poll,
#endif
#ifdef SYS_select
		SYS_select,
#endif
#ifdef SYS_epoll_wait
		SYS_epoll_wait,
#endif
#ifdef SYS_wait4
		SYS_wait4,
#endif
	};
	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++)
		if (nr == calls[i])
			return 1;
	return 0;
}

/* The process has the tty as its fd 0 and its main thread is running or
 * about to (not S, t, T or Z), or, with the tty in non-canonical mode
 * (raw: a curses program), asleep in anything but a wait for input. */
static int busy(int pid, const struct stat *tty, int raw)
{
	char path[64], buf[512], *p;
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%d/fd/0", pid);
	if (stat(path, &st) < 0 || st.st_rdev != tty->st_rdev || !S_ISCHR(st.st_mode))
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t k = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[k > 0 ? k : 0] = '\0';
	p = strrchr(buf, ')');
	if (!p || !p[1] || !p[2])
		return 0;
	if (strchr("tTZ", p[2]))
		return 0;
	if (p[2] != 'S') {
		snprintf(why, sizeof(why), "process %d is in state %c", pid, p[2]);
		return 1;
	}
	if (!raw)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/syscall", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	k = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[k > 0 ? k : 0] = '\0';
	if (k <= 0 || waits_for_input(strtol(buf, NULL, 10)))
		return 0;
	snprintf(why, sizeof(why), "process %d sleeps in system call %ld", pid, strtol(buf, NULL, 10));
	return 1;
}

static int idle(int pane, const char *tty)
{
	int pids[MAX_PIDS], n, q = 0, raw = 0;
	struct stat st;
	struct termios tio;
	int fd = open(tty, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0 || kill(pane, 0) < 0) {
		if (fd >= 0)
			close(fd);
		return 1; /* the pane has gone */
	}
	if (fstat(fd, &st) < 0 || ioctl(fd, TIOCINQ, &q) < 0)
		q = 0;
	if (tcgetattr(fd, &tio) == 0)
		raw = !(tio.c_lflag & ICANON);
	close(fd);
	if (q > 0) {
		snprintf(why, sizeof(why), "%d bytes not read from %s", q, tty);
		return 0;
	}
	n = descendants(pane, pids, 0);
	for (int i = 0; i < n; i++)
		if (busy(pids[i], &st, raw))
			return 0;
	return 1;
}

int main(int argc, char **argv)
{
	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: tui-idle PANE-PID TTY [CAP-MS]\n");
		return 2;
	}
	int pane = atoi(argv[1]);
	long cap = argc > 3 ? atol(argv[3]) : 10000, start = now_ms(), since = -1;
	struct timespec step = { 0, STEP_MS * 1000000L };

	for (;;) {
		long t = now_ms();
		if (idle(pane, argv[2])) {
			if (since < 0)
				since = t;
			if (t - since >= IDLE_MS)
				return 0;
		} else {
			since = -1;
		}
		if (t - start >= cap) {
			fprintf(stderr, "tui-idle: not idle after %ld ms: %s\n", cap, why);
			return 1;
		}
		nanosleep(&step, NULL);
	}
}
