# A Python process of known blocking for pscope's off-CPU view: lines the
# tests check carry a "# LINE:name" marker (found with grep).
#   sleeper  serve -> handle: time.sleep(0.02) in a loop
#   reader   serve_reads -> handle_read: a socket read, woken by "writer"
#            (write_all) every 20 ms
# "ready" is printed once both threads are in their loops.
import socket
import sys
import threading
import time

started = threading.Barrier(3)


def handle():
    time.sleep(0.02)  # LINE:handle


def serve():
    started.wait()
    while True:
        handle()  # LINE:serve


def handle_read(sock):
    return sock.recv(64)  # LINE:handle_read


def serve_reads(sock):
    started.wait()
    while True:
        handle_read(sock)  # LINE:serve_reads


def write_all(sock):
    while True:
        time.sleep(0.02)
        sock.send(b"x")


a, b = socket.socketpair()
threading.Thread(target=serve, name="sleeper", daemon=True).start()
threading.Thread(target=serve_reads, args=(a,), name="reader", daemon=True).start()
threading.Thread(target=write_all, args=(b,), name="writer", daemon=True).start()
started.wait()
print("ready", flush=True)
while True:
    time.sleep(3600)
