# A deadlock over two threading.Lock objects: "teller-a" takes ledger then
# journal, "teller-b" takes journal then ledger, each inside `with` blocks;
# "bystander" waits for ledger behind them. Lines the tests check carry a
# "# LINE:name" marker. Prints "ready" once both tellers hold their first
# lock and are about to take the second (the tests then wait for every
# thread to block in its acquire).
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


for name, fn in (("teller-a", teller_a), ("teller-b", teller_b), ("bystander", bystander)):
    threading.Thread(target=fn, name=name, daemon=True).start()
both.wait()
sys.stdout.write("ledger 0x%x journal 0x%x\n" % (id(ledger), id(journal)))
sys.stdout.write("ready\n")
sys.stdout.flush()
while True:
    time.sleep(3600)  # LINE:main
