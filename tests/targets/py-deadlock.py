# A deadlock over two threading.Lock objects: "teller-a" takes ledger then
# journal, "teller-b" takes journal then ledger, each inside `with` blocks;
# "bystander" waits for ledger behind them. Lines the tests check carry a
# "# LINE:name" marker. Prints the two locks' addresses (id()), then
# "ready" once both tellers hold their first lock and every thread is at
# its last `with` (the tests then wait for each to block in its acquire).
import signal
import sys
import threading
import time

signal.signal(signal.SIGQUIT, signal.SIG_DFL)

ledger = threading.Lock()
journal = threading.Lock()
both = threading.Barrier(4)  # the three threads and main


def transfer(first, second):
    with first:
        both.wait()
        with second:  # LINE:transfer
            pass


def teller_a():
    transfer(ledger, journal)


def teller_b():
    transfer(journal, ledger)


def bystander():
    both.wait()
    with ledger:  # LINE:bystander
        pass


def marker(name):
    with open(__file__) as f:
        return next(i + 1 for i, l in enumerate(f) if l.rstrip().endswith("# LINE:" + name))


threads = []
for name, fn in (("teller-a", teller_a), ("teller-b", teller_b), ("bystander", bystander)):
    t = threading.Thread(target=fn, name=name, daemon=True)
    t.start()
    threads.append(t)
both.wait()
# Past the barrier (whose own locks they may still be taking): wait until
# each thread's innermost frame is at its last `with`.
want = {threads[0].ident: (transfer.__code__, marker("transfer")),
        threads[1].ident: (transfer.__code__, marker("transfer")),
        threads[2].ident: (bystander.__code__, marker("bystander"))}
while True:
    frames = sys._current_frames()
    if all(i in frames and (frames[i].f_code, frames[i].f_lineno) == w for i, w in want.items()):
        break
    time.sleep(0.01)
sys.stdout.write("ledger 0x%x journal 0x%x\n" % (id(ledger), id(journal)))
sys.stdout.write("ready\n")
sys.stdout.flush()
while True:
    time.sleep(3600)  # LINE:main
