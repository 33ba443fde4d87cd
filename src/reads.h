/* PS_READS marks the declaration of a function that reads the machine:
 * /proc and /sys, netlink, another process's memory or registers. Such a
 * function runs on a worker thread (a source or a job, src/source/),
 * never on the UI thread while it draws or handles a key:
 * tests/e2e/architecture.sh fails when a ui/ file calls one. The mark and
 * the function's name stay on one line. */
#ifndef PS_READS_H
#define PS_READS_H

#define PS_READS

#endif
