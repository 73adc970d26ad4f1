#!/usr/bin/env python3
"""Connection flood for scripts/drills/hostile-clients.sh: opens COUNT connections to the
server (half of them send the start of a request and stop), holds them HOLD seconds while
sampling the server's CPU from /proc/PID/stat, then closes them all. Prints one FLOOD line."""

import os
import resource
import socket
import sys
import time

host, port, pid, count, hold = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5])
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, count + 64)), hard))


def cpu_seconds():
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


sockets, refused = [], 0
started = time.monotonic()
for n in range(count):
    s = socket.socket()
    s.setblocking(False)
    try:
        s.connect_ex((host, port))
        sockets.append(s)
    except OSError:
        refused += 1
        s.close()
time.sleep(0.5)
partial = 0
for n, s in enumerate(sockets):
    if n % 2:
        try:
            s.send(b"GET /trips/2 HTTP/1.1\r\nHost: localhost\r\n")
            partial += 1
        except OSError:
            pass
opened = time.monotonic() - started
time.sleep(1)  # let the accept burst settle, then measure CPU while the flood only sits there
cpu0, t0 = cpu_seconds(), time.monotonic()
time.sleep(hold)
cpu = (cpu_seconds() - cpu0) / (time.monotonic() - t0)
closed_by_server = 0
for s in sockets:
    try:
        if s.recv(1, socket.MSG_PEEK) == b"":
            closed_by_server += 1
    except BlockingIOError:
        pass
    except OSError:
        closed_by_server += 1
for s in sockets:
    s.close()
print(f"FLOOD opened={len(sockets)} refused={refused} partial={partial} open_seconds={opened:.2f} "
      f"hold_cpu={cpu:.3f} closed_by_server={closed_by_server}")
