#!/usr/bin/env python3
"""A local process attacking the harness's webhook receiver, written without VitalSim's code, for
`PushReceiverAttackTests`: the receiver must take only the SUT's POSTs and hold whatever another
process does. It waits for the port to listen, then keeps attacking until it is killed.

Usage: receiver_attack.py MODE PORT [COUNT]
  idle     COUNT connections (default 2000) that never send; each one the receiver closes is reopened
  stalled  COUNT POSTs (default 1500) announcing 2 MB, sending 1 MB of it and stalling; reopened when closed
  forge    POSTs the expected alert of the hypertensive crisis to /alerts and to guessed keys, every 0.1 s
Prints `attacking` once the port has answered, and `refused N` lines for forged POSTs answered 401.
"""
import json
import resource
import socket
import sys
import threading
import time

MODE, PORT = sys.argv[1], int(sys.argv[2])
COUNT = int(sys.argv[3]) if len(sys.argv) > 3 else (2000 if MODE == "idle" else 1500)
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def connect():
    while True:
        try:
            return socket.create_connection(("127.0.0.1", PORT), timeout=30)
        except OSError:
            time.sleep(0.05)


def hold(first):
    """Keeps one connection open and silent (idle) or stalled mid-body, reopening it when closed."""
    while True:
        s = connect()
        try:
            if MODE == "stalled":
                s.sendall(
                    b"POST /alerts/0123456789abcdef0123456789abcdef HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    b"Content-Type: application/json\r\nContent-Length: 2000000\r\n\r\n" + b" " * 1_000_000
                )
            first.set()
            s.settimeout(None)
            while s.recv(65536):
                pass
        except OSError:
            pass
        finally:
            s.close()


def forge():
    alert = {
        "alertId": "forged-1", "patientId": "507", "rule": "bp.hypertensive-crisis", "severity": "high",
        "raisedAt": "2024-11-07T19:00:00.000Z", "evidence": [],
    }
    body = json.dumps(alert).encode()
    refused = 0
    for path in ["/alerts", "/alerts/0123456789abcdef0123456789abcdef", "/alerts/forged"] * 100_000:
        s = connect()
        try:
            s.sendall(
                b"POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                b"Content-Length: %d\r\nConnection: close\r\n\r\n%s" % (path.encode(), len(body), body)
            )
            answer = s.recv(4096)
            if answer.startswith(b"HTTP/1.1 401"):
                refused += 1
                print("refused %d" % refused, flush=True)
        except OSError:
            pass
        finally:
            s.close()
        time.sleep(0.1)


connect().close()
print("attacking", flush=True)
if MODE == "forge":
    forge()
else:
    for _ in range(COUNT):
        ready = threading.Event()
        threading.Thread(target=hold, args=(ready,), daemon=True).start()
    while True:
        time.sleep(1)
