/* A process with known content for the detail panes: a pipe, a socketpair,
 * a TCP listener with an established loopback connection, a UDP socket,
 * an eventfd, an epoll instance watching two fds, a deleted file, a mapped
 * file, and named threads blocked in nanosleep and read (and one whose
 * name holds an escape sequence).
 * Usage: detail-target DIR [exit-main]   (files are created in DIR;
 * exit-main: the main thread exits once ready, the others keep running)
 * SIGUSR1 opens one more fd (/dev/zero), SIGUSR2 closes the newest one. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static int sleep_pipe[2];
static volatile sig_atomic_t want_open, want_close;

static void *sleeper(void *arg)
{
	struct timespec ts = { 100000, 0 };
	(void)arg;
	for (;;)
		nanosleep(&ts, NULL);
	return NULL;
}

static void *reader(void *arg)
{
	char c;
	(void)arg;
	for (;;)
		if (read(sleep_pipe[0], &c, 1) <= 0)
			pause();
	return NULL;
}

static void on_usr(int sig)
{
	if (sig == SIGUSR1)
		want_open = 1;
	else
		want_close = 1;
}

static int die(const char *what)
{
	perror(what);
	exit(1);
}

int main(int argc, char **argv)
{
	int sp[2], extra[64], nextra = 0;
	char path[4096];
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t al = sizeof(a);

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: detail-target DIR [exit-main]\n");
		return 2;
	}
	if (pipe(sleep_pipe) < 0)
		die("pipe");
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sp) < 0)
		die("socketpair");

	int lis = socket(AF_INET, SOCK_STREAM, 0);
	if (lis < 0 || bind(lis, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(lis, 4) < 0)
		die("listen");
	getsockname(lis, (struct sockaddr *)&a, &al);
	int tcp_port = ntohs(a.sin_port);
	int cli = socket(AF_INET, SOCK_STREAM, 0);
	if (cli < 0 || connect(cli, (struct sockaddr *)&a, sizeof(a)) < 0)
		die("connect");
	int srv = accept(lis, NULL, NULL);
	if (srv < 0)
		die("accept");
	struct sockaddr_in c = { 0 };
	al = sizeof(c);
	getsockname(cli, (struct sockaddr *)&c, &al);

	int udp = socket(AF_INET, SOCK_DGRAM, 0);
	struct sockaddr_in u = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	if (udp < 0 || bind(udp, (struct sockaddr *)&u, sizeof(u)) < 0)
		die("udp");
	al = sizeof(u);
	getsockname(udp, (struct sockaddr *)&u, &al);

	int efd = eventfd(7, 0);
	int ep = epoll_create1(0);
	struct epoll_event ev = { .events = EPOLLIN };
	ev.data.fd = efd;
	epoll_ctl(ep, EPOLL_CTL_ADD, efd, &ev);
	ev.data.fd = lis;
	epoll_ctl(ep, EPOLL_CTL_ADD, lis, &ev);

	snprintf(path, sizeof(path), "%s/deleted-file", argv[1]);
	int del = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (del < 0 || write(del, "hello", 5) != 5)
		die("deleted file");
	unlink(path);

	snprintf(path, sizeof(path), "%s/mapped-file", argv[1]);
	int mf = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (mf < 0 || ftruncate(mf, 3 * 4096) < 0)
		die("mapped file");
	char *map = mmap(NULL, 3 * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, mf, 0);
	if (map == MAP_FAILED)
		die("mmap");
	memset(map, 1, 3 * 4096);
	close(mf);

	pthread_t t1, t2, t3;
	pthread_create(&t1, NULL, sleeper, NULL);
	pthread_setname_np(t1, "dt-sleeper");
	pthread_create(&t2, NULL, reader, NULL);
	pthread_setname_np(t2, "dt-reader");
	/* A hostile name: an escape sequence that would turn a terminal red. */
	pthread_create(&t3, NULL, sleeper, NULL);
	pthread_setname_np(t3, "dt-\033[31mred");

	struct sigaction sa = { .sa_handler = on_usr };
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGUSR2, &sa, NULL);
	printf("ready tcp_port=%d client_port=%d udp_port=%d pipe_r=%d socketpair=%d,%d listener=%d client=%d "
	       "server=%d udp=%d eventfd=%d epoll=%d deleted=%d\n",
	       tcp_port, ntohs(c.sin_port), ntohs(u.sin_port), sleep_pipe[0], sp[0], sp[1], lis, cli, srv, udp, efd, ep,
	       del);
	fflush(stdout);
	if (argc == 3 && !strcmp(argv[2], "exit-main"))
		pthread_exit(NULL); /* leaves a zombie main thread, the process lives on */
	for (;;) {
		pause();
		if (want_open && nextra < 64) {
			want_open = 0;
			extra[nextra++] = open("/dev/zero", O_RDONLY);
		}
		if (want_close && nextra > 0) {
			want_close = 0;
			close(extra[--nextra]);
		}
	}
}
