# A Python process of known shape for pscope's Python views (stack, top,
# folded). Lines the tests check carry a "# LINE:name" marker; the tests
# find them with grep, so moving code around keeps them right.
#   hot-worker  worker_hot -> handle -> price_rules (spins, holds the GIL)
#   sleeper     time.sleep
#   locked      blocked on a threading.Lock held by the main thread
#   selector    select.select on a pipe that never becomes readable
#   main        time.sleep, after writing "ready" to stdout (once the hot
#               worker is in price_rules; the tests then wait for the other
#               threads to block: tests/e2e/python-stack.sh, py_settled)
import os
import select
import signal
import sys
import threading
import time

# The kernel-core tests end this process with SIGQUIT: give it its default
# action (a core) even when the shell that started the suite ignored it.
signal.signal(signal.SIGQUIT, signal.SIG_DFL)

lock = threading.Lock()
hot = threading.Event()


def price_rules():
    hot.set()
    t = 0
    while True: t = (t + 1) % 1000003  # LINE:price_rules


def handle():
    price_rules()  # LINE:handle


def worker_hot():
    handle()  # LINE:worker_hot


def nap():
    while True:
        time.sleep(3600)  # LINE:nap


def wait_lock():
    lock.acquire()  # LINE:wait_lock


def wait_select():
    r, w = os.pipe()
    while True:
        select.select([r], [], [], 3600)  # LINE:wait_select


def main():
    lock.acquire()
    for name, fn in (("hot-worker", worker_hot), ("sleeper", nap), ("locked", wait_lock),
                     ("selector", wait_select)):
        threading.Thread(target=fn, name=name, daemon=True).start()
    hot.wait()
    sys.stdout.write("ready\n")
    sys.stdout.flush()
    while True:
        time.sleep(3600)  # LINE:main


main()
