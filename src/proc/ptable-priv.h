/* Shared by ptable.c and ptable-extra.c only. */
#ifndef PS_PROC_PTABLE_PRIV_H
#define PS_PROC_PTABLE_PRIV_H

#include "proc/ptable.h"

/* The held /proc dirfd and the scan generation. */
int ptable_dirfd_(const struct ptable *pt);
unsigned ptable_gen_(const struct ptable *pt);

#endif
