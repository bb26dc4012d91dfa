#!/usr/bin/env python3
"""A hostile system under test, written without VitalSim's code, for the harness's bounds
(`HostileSUTTests`): it takes every reading (200) and answers the reads a run makes in one of the
ways no SUT should. The harness must end each run unjudged (exit 3) naming what happened, within a
deadline and a memory bound, whatever this server does.

Usage: hostile_sut.py MODE
Prints `listening on http://127.0.0.1:PORT`. Modes:
  huge-alerts      the alert list is 1,000,000 valid alerts (about 110 MB), streamed
  slow-drip        the alert list arrives one byte every half second
  endless-headers  the alert list's answer sends header lines for ever
  wrong-length     the alert list's answer announces 1,000 bytes, sends 2 and closes
  sse-flood        the SSE stream (/api/v1/alerts/stream) sends distinct alerts as fast as it can
  sse-noise        the SSE stream sends events that are not alerts as fast as it can
  deep-alerts      the alert list is one alert whose evidence holds 15 MiB of arrays nested 500 deep
  zero-alerts      the alert list is one alert and 15 MiB of `0` items
  endless-readback stored readings come in full pages with a fresh cursor for ever
  stall            a connection is accepted and never answered (not even a TLS handshake)
"""
import json
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MODE = sys.argv[1]


def alert(i):
    return {
        "alertId": "x%d" % i,
        "patientId": "507",
        "rule": "bp.hypertensive-crisis",
        "severity": "high",
        "raisedAt": "2024-11-07T18:00:00.000Z",
        "evidence": [],
    }


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def reply(self, status, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.reply(200, {"status": "accepted"})

    def do_GET(self):
        path = self.path.split("?")[0]
        try:
            if path == "/api/v1/alerts":
                self.alerts()
            elif path == "/api/v1/alerts/stream":
                self.stream()
            elif path.startswith("/api/v1/patients/") and path.endswith("/readings"):
                self.readings()
            else:
                self.reply(404, {"error": "not found"})
        except (BrokenPipeError, ConnectionResetError):
            pass

    def alerts(self):
        if MODE == "huge-alerts":
            count = 1_000_000
            chunk = ",".join(json.dumps(alert(i)) for i in range(1000)).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(2 + count // 1000 * len(chunk) + count // 1000 - 1))
            self.end_headers()
            self.wfile.write(b"[")
            for k in range(count // 1000):
                self.wfile.write((b"," if k else b"") + chunk)
            self.wfile.write(b"]")
        elif MODE == "slow-drip":
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", "1000000")
            self.end_headers()
            self.wfile.write(b"[")
            for _ in range(1_000_000):
                self.wfile.write(b" ")
                self.wfile.flush()
                time.sleep(0.5)
        elif MODE == "endless-headers":
            self.wfile.write(b"HTTP/1.1 200 OK\r\n")
            for i in range(100_000_000):
                self.wfile.write(b"X-Filler-%d: %s\r\n" % (i, b"y" * 100))
                self.wfile.flush()
                time.sleep(0.001)
        elif MODE in ("deep-alerts", "zero-alerts"):
            head = json.dumps(alert(0))
            if MODE == "deep-alerts":
                nest = b"[" * 500 + b"]" * 500
                filler = b",".join([nest] * (15 * 1024 * 1024 // len(nest)))
                body = head.replace('"evidence": []', '"evidence": [%s]').encode() % filler
                body = b"[" + body + b"]"
            else:
                body = b"[" + head.encode() + b",0" * (15 * 1024 * 1024 // 2) + b"]"
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        elif MODE == "wrong-length":
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", "1000")
            self.end_headers()
            self.wfile.write(b"[]")
            self.wfile.flush()
            self.close_connection = True
        else:
            self.reply(200, [])

    def stream(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        i = 0
        while MODE == "sse-flood":
            self.wfile.write(b"id: %d\ndata: %s\n\n" % (i, json.dumps(alert(i)).encode()))
            i += 1
        noise = json.dumps({"kind": "heartbeat", "padding": "n" * 4000}).encode()
        while MODE == "sse-noise":
            self.wfile.write(b"data: %s\n\n" % noise)
        while True:
            self.wfile.write(b": idle\n\n")
            self.wfile.flush()
            time.sleep(1)

    def readings(self):
        after = int(self.path.split("after=")[1].split("&")[0]) if "after=" in self.path else 0
        if MODE != "endless-readback":
            self.reply(200, {"items": []})
            return
        items = [
            {
                "readingId": "507/cuff-507/%d" % (after * 1000 + i),
                "timestamp": "2024-11-07T08:00:00.000Z",
                "values": {"systolic": 120, "diastolic": 80},
                "units": {"systolic": "mm[Hg]", "diastolic": "mm[Hg]"},
            }
            for i in range(1000)
        ]
        self.reply(200, {"items": items, "next": str(after + 1)})


def stall():
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    print("listening on https://127.0.0.1:%d" % listener.getsockname()[1], flush=True)
    held = []
    while True:
        connection, _ = listener.accept()
        held.append(connection)


if MODE == "stall":
    stall()
else:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print("listening on http://127.0.0.1:%d" % server.server_address[1], flush=True)
    server.serve_forever()
