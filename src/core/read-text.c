/* Names of what the kernel recorded: signals and their si_code. */
#include "core/read.h"
#include "i18n.h"
#include "util.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

const char *core_signal_name(int signo)
{
	static __thread char buf[16];
	const char *a = signo > 0 && signo < SIGRTMIN ? sigabbrev_np(signo) : NULL;

	if (!a)
		return NULL;
	snprintf(buf, sizeof(buf), "SIG%s", a);
	return buf;
}

struct code_name {
	int signo, code;
	const char *name, *meaning;
};

static const struct code_name codes[] = {
	{ SIGSEGV, SEGV_MAPERR, "SEGV_MAPERR", N_("address not mapped to object") },
	{ SIGSEGV, SEGV_ACCERR, "SEGV_ACCERR", N_("invalid permissions for mapped object") },
	{ SIGSEGV, 3, "SEGV_BNDERR", N_("failed address bound checks") },
	{ SIGSEGV, 4, "SEGV_PKUERR", N_("access denied by memory protection keys") },
	{ SIGBUS, BUS_ADRALN, "BUS_ADRALN", N_("invalid address alignment") },
	{ SIGBUS, BUS_ADRERR, "BUS_ADRERR", N_("nonexistent physical address (e.g. past the end of a mapped file)") },
	{ SIGBUS, BUS_OBJERR, "BUS_OBJERR", N_("object-specific hardware error") },
	{ SIGBUS, 4, "BUS_MCEERR_AR", N_("hardware memory error") },
	{ SIGILL, ILL_ILLOPC, "ILL_ILLOPC", N_("illegal opcode") },
	{ SIGILL, ILL_ILLOPN, "ILL_ILLOPN", N_("illegal operand") },
	{ SIGILL, ILL_ILLADR, "ILL_ILLADR", N_("illegal addressing mode") },
	{ SIGILL, ILL_ILLTRP, "ILL_ILLTRP", N_("illegal trap") },
	{ SIGILL, ILL_PRVOPC, "ILL_PRVOPC", N_("privileged opcode") },
	{ SIGILL, ILL_PRVREG, "ILL_PRVREG", N_("privileged register") },
	{ SIGILL, ILL_COPROC, "ILL_COPROC", N_("coprocessor error") },
	{ SIGILL, ILL_BADSTK, "ILL_BADSTK", N_("internal stack error") },
	{ SIGFPE, FPE_INTDIV, "FPE_INTDIV", N_("integer divide by zero") },
	{ SIGFPE, FPE_INTOVF, "FPE_INTOVF", N_("integer overflow") },
	{ SIGFPE, FPE_FLTDIV, "FPE_FLTDIV", N_("floating-point divide by zero") },
	{ SIGFPE, FPE_FLTOVF, "FPE_FLTOVF", N_("floating-point overflow") },
	{ SIGFPE, FPE_FLTUND, "FPE_FLTUND", N_("floating-point underflow") },
	{ SIGFPE, FPE_FLTRES, "FPE_FLTRES", N_("floating-point inexact result") },
	{ SIGFPE, FPE_FLTINV, "FPE_FLTINV", N_("invalid floating-point operation") },
	{ SIGFPE, FPE_FLTSUB, "FPE_FLTSUB", N_("subscript out of range") },
	{ SIGTRAP, TRAP_BRKPT, "TRAP_BRKPT", N_("process breakpoint") },
	{ SIGTRAP, TRAP_TRACE, "TRAP_TRACE", N_("process trace trap") },
	{ 0, SI_USER, "SI_USER", N_("sent by kill()") },
	{ 0, SI_KERNEL, "SI_KERNEL", N_("sent by the kernel") },
	{ 0, SI_QUEUE, "SI_QUEUE", N_("sent by sigqueue()") },
	{ 0, SI_TIMER, "SI_TIMER", N_("POSIX timer expired") },
	{ 0, SI_MESGQ, "SI_MESGQ", N_("POSIX message queue state changed") },
	{ 0, SI_ASYNCIO, "SI_ASYNCIO", N_("AIO completed") },
	{ 0, SI_TKILL, "SI_TKILL", N_("sent by tkill() or tgkill() (e.g. abort(), raise())") },
};

const char *core_sigcode_name(int signo, int code, const char **meaning)
{
	/* Small positive codes mean per-signal things; 0, the negative ones
	 * and SI_KERNEL are the same for every signal. */
	for (size_t i = 0; i < ARRAY_SIZE(codes); i++)
		if ((codes[i].signo == signo || codes[i].signo == 0) && codes[i].code == code) {
			if (meaning)
				*meaning = _(codes[i].meaning);
			return codes[i].name;
		}
	if (meaning)
		*meaning = NULL;
	return NULL;
}
