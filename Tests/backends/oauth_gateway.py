#!/usr/bin/env python3
"""An OAuth2-protected gateway in front of a backend, written without VitalSim's code, for the
SUT-profile tests: a client-credentials token endpoint (RFC 6749 §4.4) whose tokens really live
only --lifetime seconds while their expires_in may advertise longer (--advertise), so a client
learns of an expired token only from a 401; every other request needs a valid bearer token and is
forwarded to the upstream backend.

Usage: oauth_gateway.py UPSTREAM_URL CA_FILE CLIENT_ID CLIENT_SECRET [--lifetime S] [--advertise S]
Prints `listening on http://127.0.0.1:PORT`; GET /_stats answers the counters as JSON.
"""
import base64
import json
import secrets
import ssl
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def option(name, default):
    if name in sys.argv:
        return float(sys.argv[sys.argv.index(name) + 1])
    return default


UPSTREAM, CA, CLIENT_ID, CLIENT_SECRET = sys.argv[1:5]
LIFETIME = option("--lifetime", 60)
ADVERTISE = option("--advertise", LIFETIME)
CONTEXT = ssl.create_default_context(cafile=CA)
LOCK = threading.Lock()
TOKENS = {}
STATS = {"tokens_issued": 0, "expired_rejections": 0, "forwarded": 0}


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
        form = urllib.parse.parse_qs(self.body().decode())
        client = (form.get("client_id", [None])[0], form.get("client_secret", [None])[0])
        auth = self.headers.get("Authorization", "")
        if auth.startswith("Basic "):
            user, _, password = base64.b64decode(auth[6:]).decode().partition(":")
            client = (urllib.parse.unquote_plus(user), urllib.parse.unquote_plus(password))
        if form.get("grant_type", [None])[0] != "client_credentials":
            return self.reply(400, {"error": "unsupported_grant_type"})
        if client != (CLIENT_ID, CLIENT_SECRET):
            return self.reply(401, {"error": "invalid_client"})
        token = secrets.token_hex(16)
        with LOCK:
            TOKENS[token] = time.monotonic() + LIFETIME
            STATS["tokens_issued"] += 1
        self.reply(200, {"access_token": token, "token_type": "Bearer", "expires_in": ADVERTISE})

    def authorized(self):
        auth = self.headers.get("Authorization", "")
        token = auth[7:] if auth.startswith("Bearer ") else None
        with LOCK:
            expires = TOKENS.get(token)
            if expires is not None and time.monotonic() < expires:
                return True
            if expires is not None:
                STATS["expired_rejections"] += 1
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
                return self.reply(200, dict(STATS))
        self.forward("GET")

    def do_POST(self):
        if self.path == "/oauth/token":
            return self.token_request()
        self.forward("POST")


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(f"listening on http://127.0.0.1:{server.server_address[1]}", flush=True)
server.serve_forever()
