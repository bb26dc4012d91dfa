#!/usr/bin/env python3
"""A proxy between a FHIR server and the harness's Subscription receiver, written without
VitalSim's code, that loses notifications the way a broken network path or gateway does: it answers
the server 200 and forwards nothing. Handshakes and heartbeats (R4 Subscriptions Backport IG) pass,
so the server and the harness both see a working channel; event notifications (Backport history
Bundles of type event-notification) and R4 rest-hook notifications (the resource itself) are
dropped under --drop events, and forwarded under --drop none.

Usage: notification_proxy.py UPSTREAM_URL [--drop events|none]
UPSTREAM_URL is the receiver's base (http://127.0.0.1:PORT/fhir/); the path after the proxy's own
/fhir/ is appended to it. Prints `listening on http://127.0.0.1:PORT/fhir/`; GET /_stats answers
the counters as JSON.
"""
import json
import sys
import threading
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

UPSTREAM = sys.argv[1].rstrip("/") + "/"
DROP = sys.argv[sys.argv.index("--drop") + 1] if "--drop" in sys.argv else "events"
LOCK = threading.Lock()
STATS = {"forwarded": 0, "dropped": 0}


def notification_type(body):
    """The Backport notification type of a history Bundle, or None for anything else."""
    try:
        document = json.loads(body)
    except ValueError:
        return None
    if not isinstance(document, dict) or document.get("type") != "history":
        return None
    entries = document.get("entry") or [{}]
    status = entries[0].get("resource") or {}
    for parameter in status.get("parameter", []):
        if parameter.get("name") == "type":
            return parameter.get("valueCode")
    return None


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def reply(self, status, data, content_type="application/fhir+json"):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        with LOCK:
            self.reply(200, json.dumps(STATS).encode(), "application/json")

    def notify(self):
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        kind = notification_type(body)
        if DROP == "events" and kind not in ("handshake", "heartbeat"):
            with LOCK:
                STATS["dropped"] += 1
            self.reply(200, b'{"resourceType":"OperationOutcome","issue":[]}')
            return
        path = self.path.split("/fhir/", 1)[-1]
        request = urllib.request.Request(UPSTREAM + path, data=body, method=self.command)
        request.add_header("Content-Type", self.headers.get("Content-Type") or "application/fhir+json")
        try:
            with urllib.request.urlopen(request, timeout=15) as answer:
                status, data = answer.status, answer.read()
        except urllib.error.HTTPError as error:
            status, data = error.code, error.read()
        except OSError:
            status, data = 502, b""
        with LOCK:
            STATS["forwarded"] += 1
        self.reply(status, data)

    do_POST = notify
    do_PUT = notify


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(f"listening on http://127.0.0.1:{server.server_address[1]}/fhir/", flush=True)
server.serve_forever()
