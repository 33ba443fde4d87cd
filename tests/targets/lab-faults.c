/* Lab target: minor and major page faults side by side. Every second it
 * touches MB fresh anonymous megabytes (minor faults: the kernel only hands
 * out zeroed pages) and reads MB megabytes of a file it wrote, after asking
 * the kernel to drop that file from the page cache (major faults: each page
 * comes from the disk again; the file lives in /var/tmp, which is on disk
 * where /tmp may be tmpfs). Usage: lab-faults [MB] (default 16) */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	size_t mb = argc > 1 ? (size_t)atol(argv[1]) : 16, len = mb << 20;
	char path[] = "/var/tmp/lab-faults.XXXXXX"; /* on disk: /tmp may be tmpfs */
	int fd = mkstemp(path);
	char *block = malloc(1 << 20);
	volatile unsigned long sum = 0;

	if (fd < 0 || !block || mb == 0) {
		perror("lab-faults");
		return 1;
	}
	unlink(path);
	memset(block, 'x', 1 << 20);
	for (size_t i = 0; i < mb; i++)
		if (write(fd, block, 1 << 20) != 1 << 20) {
			perror("write");
			return 1;
		}
	fsync(fd);
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	for (;;) {
		char *anon = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		char *file;

		if (anon != MAP_FAILED) {
			for (size_t off = 0; off < len; off += 4096)
				anon[off] = 1; /* minor fault */
			munmap(anon, len);
		}
		posix_fadvise(fd, 0, (off_t)len, POSIX_FADV_DONTNEED);
		file = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
		if (file != MAP_FAILED) {
			madvise(file, len, MADV_RANDOM); /* no read-ahead: one fault per page */
			for (size_t off = 0; off < len; off += 4096)
				sum += (unsigned char)file[off]; /* major fault */
			munmap(file, len);
		}
		sleep(1);
	}
}
