/* x86-64 system call numbers to names (no external tool at run time). */
#ifndef PS_PROC_SYSCALLS_H
#define PS_PROC_SYSCALLS_H

/* "nanosleep" for 35; NULL when the number is unknown. */
const char *proc_syscall_name(long nr);
/* The same, or "syscall_N" written into buf when the number is unknown. */
const char *proc_syscall_label(long nr, char *buf, unsigned long size);

#endif
