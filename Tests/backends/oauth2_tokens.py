"""OAuth2 client credentials (RFC 6749 §4.4) for the test backends, written without VitalSim's code:
a token endpoint that authenticates the client by HTTP Basic or the form body, and bearer checks.
Tokens really live `lifetime` seconds while expires_in may advertise `advertise`."""
import base64
import secrets
import threading
import time
import urllib.parse


class TokenIssuer:
    def __init__(self, client_id, client_secret, lifetime, advertise=None):
        self.client = (client_id, client_secret)
        self.lifetime = lifetime
        self.advertise = lifetime if advertise is None else advertise
        self.lock = threading.Lock()
        self.tokens = {}
        self.issued = 0
        self.expired_rejections = 0

    def token_request(self, form_body, authorization):
        """(status, JSON answer) of a token request."""
        form = urllib.parse.parse_qs(form_body.decode())
        client = (form.get("client_id", [None])[0], form.get("client_secret", [None])[0])
        if authorization.startswith("Basic "):
            user, _, password = base64.b64decode(authorization[6:]).decode().partition(":")
            client = (urllib.parse.unquote_plus(user), urllib.parse.unquote_plus(password))
        if form.get("grant_type", [None])[0] != "client_credentials":
            return 400, {"error": "unsupported_grant_type"}
        if client != self.client:
            return 401, {"error": "invalid_client"}
        token = secrets.token_hex(16)
        with self.lock:
            self.tokens[token] = time.monotonic() + self.lifetime
            self.issued += 1
        return 200, {"access_token": token, "token_type": "Bearer", "expires_in": self.advertise}

    def valid(self, authorization):
        """Whether an Authorization header carries a live token (an expired one is counted)."""
        token = authorization[7:] if authorization.startswith("Bearer ") else None
        with self.lock:
            expires = self.tokens.get(token)
            if expires is not None and time.monotonic() < expires:
                return True
            if expires is not None:
                self.expired_rejections += 1
        return False
