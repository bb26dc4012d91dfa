#!/usr/bin/env python3
"""An OAuth2-protected gateway in front of a backend, written without VitalSim's code, for the
SUT-profile tests: a client-credentials token endpoint (RFC 6749 §4.4) whose tokens really live
only --lifetime seconds while their expires_in may advertise longer (--advertise), so a client
learns of an expired token only from a 401; every other request needs a valid bearer token and is
forwarded to the upstream backend.

Usage: oauth_gateway.py UPSTREAM_URL CA_FILE CLIENT_ID CLIENT_SECRET [--lifetime S] [--advertise S]
Prints `listening on http://127.0.0.1:PORT`; GET /_stats answers the counters as JSON.
"""
import json
import ssl
import sys
import threading
import urllib.error
import urllib.parse
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from oauth2_tokens import TokenIssuer


def option(name, default):
    if name in sys.argv:
        return float(sys.argv[sys.argv.index(name) + 1])
    return default


UPSTREAM, CA, CLIENT_ID, CLIENT_SECRET = sys.argv[1:5]
LIFETIME = option("--lifetime", 60)
ADVERTISE = option("--advertise", LIFETIME)
CONTEXT = ssl.create_default_context(cafile=CA)
LOCK = threading.Lock()
ISSUER = TokenIssuer(CLIENT_ID, CLIENT_SECRET, LIFETIME, ADVERTISE)
STATS = {"forwarded": 0}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def reply(self, status, body, content_type="application/json"):
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def body(self):
        return self.rfile.read(int(self.headers.get("Content-Length") or 0))

    def token_request(self):
        status, answer = ISSUER.token_request(self.body(), self.headers.get("Authorization", ""))
        self.reply(status, answer)

    def authorized(self):
        if ISSUER.valid(self.headers.get("Authorization", "")):
            return True
        self.reply(401, {"error": "invalid_token"})
        return False

    def forward(self, method):
        data = self.body() if method == "POST" else None
        if not self.authorized():
            return
        headers = {"Content-Type": self.headers.get("Content-Type", "application/json")}
        request = urllib.request.Request(UPSTREAM + self.path, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, context=CONTEXT, timeout=30) as r:
                status, body, kind = r.status, r.read(), r.headers.get("Content-Type", "application/json")
        except urllib.error.HTTPError as e:
            status, body, kind = e.code, e.read(), e.headers.get("Content-Type", "application/json")
        with LOCK:
            STATS["forwarded"] += 1
        self.reply(status, body, kind)

    def do_GET(self):
        if self.path == "/_stats":
            with LOCK:
                return self.reply(200, dict(STATS, tokens_issued=ISSUER.issued, expired_rejections=ISSUER.expired_rejections))
        self.forward("GET")

    def do_POST(self):
        if self.path == "/oauth/token":
            return self.token_request()
        self.forward("POST")


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(f"listening on http://127.0.0.1:{server.server_address[1]}", flush=True)
server.serve_forever()
