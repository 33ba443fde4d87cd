# Benchmark target for the Python sampler and the Python stack dump.
#   py-work.py work THREADS SECONDS   THREADS threads do arithmetic in a
#       function two calls deep for SECONDS, then print "work N" (the
#       total iterations: the work rate the sampler must not slow down)
#   py-work.py idle THREADS           THREADS threads in time.sleep five
#       Python calls deep; prints "ready" and waits to be killed
import sys
import threading
import time

counts = []


def leaf(n):
    x = 0
    for i in range(n):
        x += i * i % 7
    return x


def middle(n):
    return leaf(n)


def worker(slot, end):
    done = 0
    while time.monotonic() < end:
        middle(1000)
        done += 1
    counts[slot] = done


def deep(level):
    if level:
        deep(level - 1)
    else:
        while True:
            time.sleep(3600)


def main():
    mode, n = sys.argv[1], int(sys.argv[2])
    if mode == "work":
        end = time.monotonic() + float(sys.argv[3])
        counts.extend([0] * n)
        ts = [threading.Thread(target=worker, args=(i, end)) for i in range(n)]
        for t in ts:
            t.start()
        sys.stdout.write("ready\n")
        sys.stdout.flush()
        for t in ts:
            t.join()
        print("work %d" % sum(counts))
    else:
        for _ in range(n):
            threading.Thread(target=deep, args=(4,), daemon=True).start()
        sys.stdout.write("ready\n")
        sys.stdout.flush()
        deep(4)


main()
