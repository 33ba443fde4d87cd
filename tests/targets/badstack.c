/* Stacks that lie, for the unwinder: threads parked in code with no
 * unwind information (so only the frame-pointer chain is left) whose chain
 * is hostile:
 *   fp_loop_wait   the frame pointer points at itself (a loop)
 *   fp_wild_wait   the frame pointer points into unmapped memory
 *   sp_wild_wait   the stack pointer itself points into unmapped memory
 * Each sits in pause() through a raw syscall (no stack used), with every
 * signal blocked (a signal frame could not be written on a wild stack).
 * The main thread waits in sigwait. Prints "ready" once all three are in
 * pause(). x86-64 only. */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void fp_loop_wait(void);
void fp_wild_wait(void);
void sp_wild_wait(void);

/* No .cfi directives: nothing tells an unwinder how to leave these. */
__asm__(".text\n"
	".globl fp_loop_wait\n"
	".type fp_loop_wait, @function\n"
	"fp_loop_wait:\n"
	"	push %rbp\n"
	"	mov %rsp, %rbp\n"
	"	mov %rbp, (%rbp)\n" /* [rbp] = rbp */
	"1:	mov $34, %eax\n"     /* SYS_pause */
	"	syscall\n"
	"	jmp 1b\n"
	".size fp_loop_wait, .-fp_loop_wait\n"
	".globl fp_wild_wait\n"
	".type fp_wild_wait, @function\n"
	"fp_wild_wait:\n"
	"	mov $0xdead0000, %rbp\n"
	"1:	mov $34, %eax\n"
	"	syscall\n"
	"	jmp 1b\n"
	".size fp_wild_wait, .-fp_wild_wait\n"
	".globl sp_wild_wait\n"
	".type sp_wild_wait, @function\n"
	"sp_wild_wait:\n"
	"	mov $0x10, %rsp\n"
	"	mov $0x20, %rbp\n"
	"1:	mov $34, %eax\n"
	"	syscall\n"
	"	jmp 1b\n"
	".size sp_wild_wait, .-sp_wild_wait\n");

static atomic_int started;

static void *run(void *arg)
{
	sigset_t all;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	atomic_fetch_add(&started, 1);
	((void (*)(void))arg)();
	return NULL;
}

int main(void)
{
	void (*const fns[])(void) = { fp_loop_wait, fp_wild_wait, sp_wild_wait };
	const char *names[] = { "fp-loop", "fp-wild", "sp-wild" };
	sigset_t set;
	int sig;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	for (int i = 0; i < 3; i++) {
		pthread_t t;
		if (pthread_create(&t, NULL, run, (void *)fns[i])) {
			perror("pthread_create");
			return 1;
		}
		pthread_setname_np(t, names[i]);
	}
	while (atomic_load(&started) < 3)
		usleep(1000);
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	for (;;)
		sigwait(&set, &sig);
}
