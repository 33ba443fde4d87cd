/* Unix socket names that attack the text of /proc/net/unix.
 *   sockname victim DIR     a listener at DIR/good.sock (fd 40) and a
 *                           socketpair (fds 41, 42)
 *   sockname evil DIR INO   binds DIR/"a\nb.sock" (a newline in a path) and
 *                           an abstract name holding a line that claims
 *                           socket inode INO is "/run/EVIL.sock" listening
 * Prints "ready" once bound, then sleeps. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static int bind_name(const char *name, size_t len, int listening)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	if (fd < 0 || len > sizeof(a.sun_path))
		return -1;
	memcpy(a.sun_path, name, len);
	if (bind(fd, (struct sockaddr *)&a, (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len)) < 0) {
		perror("bind");
		return -1;
	}
	if (listening && listen(fd, 1) < 0)
		return -1;
	return fd;
}

int main(int argc, char **argv)
{
	char name[108];
	int sv[2];

	if (argc == 3 && !strcmp(argv[1], "victim")) {
		snprintf(name, sizeof(name), "%s/good.sock", argv[2]);
		int l = bind_name(name, strlen(name), 1);
		if (l < 0 || socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
			return 1;
		/* Known fd numbers, whatever the caller left open. */
		if (dup2(l, 40) < 0 || dup2(sv[0], 41) < 0 || dup2(sv[1], 42) < 0)
			return 1;
		close(l);
		close(sv[0]);
		close(sv[1]);
	} else if (argc == 4 && !strcmp(argv[1], "evil")) {
		snprintf(name, sizeof(name), "%s/a\nb.sock", argv[2]);
		if (bind_name(name, strlen(name), 1) < 0)
			return 1;
		/* "@" then a line of the kernel's format: num refcount protocol
		 * flags (__SO_ACCEPTCON) type state inode path. */
		int n = snprintf(name, sizeof(name), "x\n0000000000000000: 00000002 00000000 00010000 0001 01 %s /run/EVIL.sock",
				 argv[3]);
		name[0] = '\0';
		if (bind_name(name, (size_t)n, 1) < 0)
			return 1;
		/* A name that only breaks lines: what follows is not a line. */
		n = snprintf(name, sizeof(name), "y\nnot a line %d\n\n\n", (int)getpid());
		name[0] = '\0';
		if (bind_name(name, (size_t)n, 0) < 0)
			return 1;
	} else {
		fprintf(stderr, "usage: sockname victim DIR | evil DIR INO\n");
		return 2;
	}
	printf("ready\n");
	fflush(stdout);
	for (;;)
		pause();
}
