#!/usr/bin/env python3
""""ACME RPM": a backend of another shape than VitalSim's reference contract, written without
VitalSim's code, for the SUT-profile tests. It keeps the clinical rules of an upstream reference SUT
(`vitalsim serve`) but shows the world its own API:

- OAuth2 client credentials (RFC 6749 §4.4) at POST /oauth/token; tokens live --lifetime seconds
  (advertised honestly in expires_in). Alert reads and patient administration need one.
- Per-device keys (X-Device-Key) for ingestion, from a YAML-ish key file (`KEY PATIENT DEVICE` lines);
  a key may post only for its own patient and device (403).
- People's keys (X-User-Key), from `user KEY PERSON ROLE [expired|revoked]` lines of the same file
  (ROLE patient, caregiver or clinician; a patient's PERSON is their patient id): a person reads the
  vitals and alerts of the patients whose enrolment's `care_team` names them (a patient their own),
  another patient's vitals are 404 (as if there were none) and the alert list holds only their
  patients' alerts; people enrol and delete nothing (403); expired and revoked keys are 401.
- Patients must be enrolled (POST /v2/patients {"id", "care_program", "alert_limits": [{rule, vital,
  limit}]}, the limits a clinician set for the patient); readings of an unknown patient are refused
  with 422. DELETE /v2/patients/{id} removes one (upstream too).
- FHIR R4 in: POST /fhir/r4/Observation (one Observation); other readings as its own telemetry JSON
  at POST /v2/telemetry {"reading", "patient", "device", "kind", "value", "unit", "at"}.
- Refusals: 422 {"errors": [{"path": FIELD, "message": …}]} (FIELD as the upstream names it, except
  `timestamp`, which ACME calls `at`).
- Alerts: GET /v2/alerts?cursor=N → {"items": [{id, patient_id: "Patient/ID", type, level,
  created_at (Unix ms)}], "next": URL or null}, 20 per page, its own type names (HIGH_BP, TACHY, …)
  and levels (HIGH, MEDIUM, LOW), no evidence.

- Paging the care team: the enrolment's `escalation` ([{"level": "high", "chain": [{"wait_s": 0,
  "users": [...]}, {"wait_s": 900, "users": [...]}]}]) says who is paged of each alert level and
  when; GET /v2/me/pages (X-User-Key) → {"pages": [{"alert": ID, "paged_at": Unix ms}]}, the
  person's own pages; POST /v2/alerts/{id}/ack {"kind": "ACK" | "DISMISS" | "REPLY"} (X-User-Key of
  someone in the patient's care team) → 204, which stops the paging chain. Upstream does the
  timing; ACME passes the care team and chain on at enrolment.

- Audit: every granted request of a person (X-User-Key) about a patient is logged — READ of
  vitals, LIST of the patients whose alerts a list showed, ACK of an action; GET
  /v2/audit?subject=ID (OAuth2 client only) → {"events": [{"user": "users/PERSON", "subject": ID,
  "op": …, "ts": RFC 3339 with ms}]}.

- Stored vitals: GET /v2/patients/{id}/vitals?page=TOKEN → {"data": [{taken_at (Unix seconds),
  measurements: {hr, sys, dia, bg, cgm, spo2, temp, wt, feed, battery, steps, kcal}, units: {…}}],
  "links": {"next": URL or null}}, without reading ids; glucose in mmol/L and weight in lb (two
  decimals), the rest in UCUM units as upstream holds them.

Faulty modes (--fault, repeatable): leak-patients (people read every patient's vitals and alerts),
drop-type:TYPE (never lists alerts of TYPE), accept-invalid
(answers 201 to what upstream refused), level-shift (HIGH listed as MEDIUM), forget-readings (every
seventh stored reading is missing from the vitals), coarse-units (vitals rounded to whole units),
stuck-paging (the vitals name their own page as the next one), ignore-limits (patients' own alert
limits are not passed upstream), first-page-only (only the first link of each paging chain is
paged), no-audit (nothing is logged).

--server-clock: created_at is ACME's own clock when it raised the alert (the moment upstream
accepted the reading that raised it), as most backends stamp their alerts, not the reading's time.

Usage: acme_rpm.py UPSTREAM_URL CA_FILE CLIENT_ID CLIENT_SECRET KEY_FILE [--lifetime S] [--fault F]… [--server-clock]
Prints `listening on http://127.0.0.1:PORT`; GET /_stats answers counters as JSON.
"""
import http.client
import json
import socket
import ssl
import sys
import threading
import time
import urllib.parse
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from oauth2_tokens import TokenIssuer

UPSTREAM, CA, CLIENT_ID, CLIENT_SECRET, KEY_FILE = sys.argv[1:6]
LIFETIME = float(sys.argv[sys.argv.index("--lifetime") + 1]) if "--lifetime" in sys.argv else 900
FAULTS = [sys.argv[i + 1] for i, a in enumerate(sys.argv) if a == "--fault"]
SERVER_CLOCK = "--server-clock" in sys.argv
# (patient, reading time in Unix ms) → when upstream accepted it, by ACME's clock (Unix ms).
ACCEPTED_AT = {}
# alert id → its created_at on ACME's clock.
CREATED_AT = {}
# Upstream over HTTPS when its URL says so (CA_FILE verifies it), else plain HTTP on loopback.
CONTEXT = ssl.create_default_context(cafile=CA) if UPSTREAM.startswith("https://") else None
LOCK = threading.Lock()
ISSUER = TokenIssuer(CLIENT_ID, CLIENT_SECRET, LIFETIME)
PATIENTS = set()
STATS = {"readings": 0, "refused": 0}
DEVICE_KEYS = {}
# User key → (person, role, state): state "" (valid), "expired" or "revoked".
USER_KEYS = {}
# Patient → the people in their care team.
CARE = {}
# The audit log: {"user", "subject", "op", "ts"} per granted request of a person, oldest first.
AUDIT = []
for line in open(KEY_FILE):
    parts = line.split()
    if len(parts) == 3:
        DEVICE_KEYS[parts[0]] = (parts[1], parts[2])
    elif len(parts) in (4, 5) and parts[0] == "user":
        USER_KEYS[parts[1]] = (parts[2], parts[3], parts[4] if len(parts) == 5 else "")

TYPES = {
    "hr.tachycardia": "TACHY", "hr.bradycardia": "BRADY", "hr.af-suspected": "AFIB",
    "bp.hypertensive-crisis": "HIGH_BP", "temp.fever": "FEVER", "spo2.low": "LOW_SPO2",
    "spo2.below-copd-target": "COPD_SPO2_BELOW_TARGET", "news2.urgent": "NEWS2_5", "news2.emergency": "NEWS2_7",
    "news2.urgent-copd": "NEWS2_5_COPD", "glucose.level1-low": "HYPO_L1", "glucose.level2-low": "HYPO_L2",
    "glucose.urgent-low": "HYPO_URGENT", "glucose.urgent-low-soon": "HYPO_PREDICTED", "glucose.fall-rate": "BG_FALLING_FAST",
    "glucose.rise-rate": "BG_RISING_FAST", "glucose.level2-high": "HYPER_L2", "glucose.meter-level2-low": "METER_HYPO_L2",
    "infant.spo2-low": "INFANT_SPO2_LOW", "infant.spo2-high": "INFANT_SPO2_HIGH", "infant.weight-loss-24h": "INFANT_WEIGHT_LOSS",
    "infant.poor-gain-3d": "INFANT_POOR_GAIN", "infant.low-intake": "INFANT_LOW_INTAKE", "device.data-gap": "DEVICE_SILENT",
    "device.low-battery": "DEVICE_BATTERY_LOW", "bp.stage2-sustained": "BP_STAGE2_SERIES", "weight.hf-gain": "HF_WEIGHT_GAIN",
    "symptom.red-flag": "RED_FLAG_SYMPTOM", "symptom.escalation": "SYMPTOM_WORSE", "ecg.af-classified": "ECG_AFIB",
    "hr.fluctuation": "HR_UNSTABLE",
}
LEVELS = {"high": "HIGH", "medium": "MEDIUM", "low": "LOW"}
PROGRAMS = {"GENERAL": "adult", "DIABETES_CGM": "diabetic-cgm", "COPD": "copd", "CHD_INFANT": "chd-infant"}


LOCAL = threading.local()


def upstream(method, path, body=None, content_type="application/json"):
    """One request to the upstream SUT on this thread's keep-alive connection (reopened once)."""
    data = json.dumps(body).encode() if isinstance(body, (dict, list)) else body
    target = urllib.parse.urlsplit(UPSTREAM)
    for attempt in (0, 1):
        if getattr(LOCAL, "connection", None) is None:
            LOCAL.connection = (
                http.client.HTTPSConnection(target.hostname, target.port, context=CONTEXT, timeout=30)
                if CONTEXT else http.client.HTTPConnection(target.hostname, target.port, timeout=30))
        try:
            LOCAL.connection.request(method, path, body=data, headers={"Content-Type": content_type})
            r = LOCAL.connection.getresponse()
            return r.status, r.read()
        except (http.client.HTTPException, OSError):
            LOCAL.connection.close()
            LOCAL.connection = None
            if attempt == 1:
                raise


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def setup(self):
        super().setup()
        # Headers and body go out as separate writes: without TCP_NODELAY, Nagle's algorithm and the
        # client's delayed ACK hold every answer ~40 ms.
        self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, *args):
        pass

    def reply(self, status, body=None):
        data = b"" if body is None else json.dumps(body).encode()
        self.send_response(status)
        if body is not None:
            self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def body(self):
        return self.rfile.read(int(self.headers.get("Content-Length") or 0))

    def error(self, status, path, message):
        return self.reply(status, {"errors": [{"path": path, "message": message}]})

    def token_request(self):
        status, answer = ISSUER.token_request(self.body(), self.headers.get("Authorization", ""))
        self.reply(status, answer)

    def bearer_ok(self):
        if "X-User-Key" in self.headers:
            if self.user() is not None:
                self.error(403, "X-User-Key", "people may not manage patients")
            return False
        if ISSUER.valid(self.headers.get("Authorization", "")):
            return True
        self.reply(401, {"error": "invalid_token"})
        return False

    def user(self):
        """The (person, role) of a valid X-User-Key, else None (401 sent)."""
        entry = USER_KEYS.get(self.headers.get("X-User-Key", ""))
        if entry is None or entry[2]:
            self.error(401, "X-User-Key", "the user key is " + (entry[2] if entry else "not known"))
            return None
        return entry[0], entry[1]

    def reader(self):
        """Who may read: ("*", None) for the OAuth2 client, (person, role) for a user key; None after a 401."""
        if "X-User-Key" in self.headers:
            return self.user()
        if ISSUER.valid(self.headers.get("Authorization", "")):
            return "*", None
        self.reply(401, {"error": "invalid_token"})
        return None

    @staticmethod
    def may_read(who, patient):
        person, role = who
        if person == "*" or "leak-patients" in FAULTS:
            return True
        if role == "patient":
            return person == patient
        with LOCK:
            return person in CARE.get(patient, ())

    @staticmethod
    def audit(who, subjects, op):
        """Logs a granted request of a person (not the OAuth2 client's) about each of `subjects`."""
        if who is None or who[0] == "*" or "no-audit" in FAULTS:
            return
        ts = datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")
        with LOCK:
            for subject in dict.fromkeys(subjects):
                AUDIT.append({"user": "users/" + who[0], "subject": subject, "op": op, "ts": ts})

    def audit_log(self):
        if not self.bearer_ok():
            return
        subject = urllib.parse.parse_qs(urllib.parse.urlsplit(self.path).query).get("subject", [None])[0]
        with LOCK:
            events = [e for e in AUDIT if subject is None or e["subject"] == subject]
        self.reply(200, {"events": events})

    def device(self):
        owner = DEVICE_KEYS.get(self.headers.get("X-Device-Key", ""))
        if owner is None:
            self.error(401, "X-Device-Key", "a device key is required")
        return owner

    def ingest(self, owner, patient, device, path, body, content_type, at=None):
        if (patient, device) != owner:
            return self.error(403, "patient", f"this key belongs to {owner[1]} of patient {owner[0]}")
        with LOCK:
            known = patient in PATIENTS
        if not known:
            return self.error(422, "patient", f"patient {patient} is not enrolled")
        status, answer = upstream("POST", path, body, content_type)
        if status < 300:
            with LOCK:
                STATS["readings"] += 1
                if at is not None:
                    ACCEPTED_AT[(patient, at)] = int(time.time() * 1000)
            return self.reply(201, {"status": "stored"})
        if status == 400:
            if "accept-invalid" in FAULTS:
                return self.reply(201, {"status": "stored"})
            with LOCK:
                STATS["refused"] += 1
            return self.error(422, *refusal(answer))
        return self.reply(status if status in (429, 503) else 502, {"errors": [{"path": "", "message": "upstream failed"}]})

    def fhir_observation(self):
        owner = self.device()
        if owner is None:
            return
        raw = self.body()
        try:
            o = json.loads(raw)
            patient = o["subject"]["reference"].removeprefix("Patient/")
            device = o["device"]["reference"].removeprefix("Device/")
        except (ValueError, KeyError, TypeError, AttributeError):
            # Unparseable here: let the upstream say what is wrong with it.
            patient, device, o = owner[0], owner[1], {}
        self.ingest(owner, patient, device, "/fhir/Observation", raw, "application/fhir+json", reading_time(o.get("effectiveDateTime")))

    def telemetry(self):
        owner = self.device()
        if owner is None:
            return
        try:
            t = json.loads(self.body())
            observation = {"readingId": t.pop("reading"), "patientId": t.pop("patient"), "deviceId": t.pop("device"),
                           "kind": t.pop("kind"), "value": t.pop("value"), "unit": t.pop("unit"), "timestamp": t.pop("at")}
            observation.update(t)
        except (ValueError, KeyError, TypeError, AttributeError):
            with LOCK:
                STATS["refused"] += 1
            return self.error(422, "", "the body is not a telemetry object")
        self.ingest(owner, observation["patientId"], observation["deviceId"], "/api/v1/observations", observation, "application/json",
                    reading_time(observation["timestamp"]))

    def enrol(self):
        if not self.bearer_ok():
            return
        try:
            p = json.loads(self.body())
            pid, profile = p["id"], PROGRAMS[p["care_program"]]
            limits = {}
            for item in p.get("alert_limits", []):
                limits.setdefault(item["rule"], {})[item["vital"]] = float(item["limit"])
            team = [member["user"] for member in p.get("care_team", [])]
            roles = [{"person": member["user"], "role": member["role"]} for member in p.get("care_team", [])]
            chains = {}
            for chain in p.get("escalation", []):
                links = chain["chain"][:1] if "first-page-only" in FAULTS else chain["chain"]
                chains[chain["level"].lower()] = [
                    {"afterSeconds": int(link["wait_s"]), "notify": list(link["users"])} for link in links]
        except (ValueError, KeyError, TypeError, AttributeError):
            return self.error(422, "care_program", "expected {id, care_program: GENERAL|DIABETES_CGM|COPD|CHD_INFANT, "
                                                   "alert_limits: [{rule, vital, limit}]}")
        enrolment = {"profile": profile, "careTeam": roles, "escalation": chains}
        if limits and "ignore-limits" not in FAULTS:
            enrolment["thresholds"] = limits
        status, answer = upstream("PUT", "/api/v1/patients/" + urllib.parse.quote(pid, safe=""), enrolment)
        if status >= 300:
            return self.reply(502, {"errors": [{"path": "", "message": answer.decode(errors="replace")}]})
        with LOCK:
            PATIENTS.add(pid)
            CARE[pid] = set(team)
        self.reply(201, {"id": pid, "care_program": p["care_program"]})

    def alerts(self):
        who = self.reader()
        if who is None:
            return
        query = urllib.parse.parse_qs(urllib.parse.urlsplit(self.path).query)
        cursor = int(query.get("cursor", ["0"])[0])
        status, answer = upstream("GET", "/api/v1/alerts")
        if status != 200:
            return self.reply(502, {"errors": [{"path": "", "message": "upstream failed"}]})
        items = []
        for a in json.loads(answer):
            if not self.may_read(who, a["patientId"]):
                continue
            kind = TYPES.get(a["rule"], a["rule"].upper())
            if f"drop-type:{kind}" in FAULTS:
                continue
            level = LEVELS[a["severity"]]
            if "level-shift" in FAULTS and level == "HIGH":
                level = "MEDIUM"
            items.append({"id": a["alertId"], "patient_id": "Patient/" + a["patientId"], "type": kind, "level": level,
                          "created_at": created_at(a)})
        page = items[cursor:cursor + 20]
        more = cursor + 20 < len(items)
        self.audit(who, [i["patient_id"].removeprefix("Patient/") for i in page], "LIST")
        self.reply(200, {"items": page, "next": f"/v2/alerts?cursor={cursor + 20}" if more else None})

    def vitals(self):
        who = self.reader()
        if who is None:
            return
        parts = urllib.parse.urlsplit(self.path)
        pid = urllib.parse.unquote(parts.path.removeprefix("/v2/patients/").removesuffix("/vitals"))
        with LOCK:
            known = pid in PATIENTS
        if not known or not self.may_read(who, pid):
            return self.error(404, "patient", f"patient {pid} is not enrolled")
        page = urllib.parse.parse_qs(parts.query).get("page", ["0"])[0]
        status, answer = upstream("GET", f"/api/v1/patients/{urllib.parse.quote(pid, safe='')}/readings?limit=500&after={page}")
        if status != 200:
            return self.reply(502, {"errors": [{"path": "", "message": "upstream failed"}]})
        listing = json.loads(answer)
        data = []
        for i, item in enumerate(listing["items"]):
            if "forget-readings" in FAULTS and (int(page) + i) % 7 == 3:
                continue
            data.append(vital(item))
        after = listing["next"]
        link = f"/v2/patients/{urllib.parse.quote(pid, safe='')}/vitals?page={after}" if after else None
        if "stuck-paging" in FAULTS:
            link = self.path
        self.audit(who, [pid], "READ")
        self.reply(200, {"data": data, "links": {"next": link}})

    def pages(self):
        who = self.user()
        if who is None:
            return
        status, answer = upstream("GET", "/api/v1/notifications?recipient=" + urllib.parse.quote(who[0], safe=""))
        if status != 200:
            return self.reply(502, {"errors": [{"path": "", "message": "upstream failed"}]})
        pages = [{"alert": n["alertId"], "paged_at": unix_ms(n["notifiedAt"])} for n in json.loads(answer)["notifications"]]
        self.reply(200, {"pages": pages})

    def ack(self):
        who = self.user()
        if who is None:
            return
        alert = urllib.parse.unquote(self.path.removeprefix("/v2/alerts/").removesuffix("/ack"))
        try:
            kind = {"ACK": "acknowledge", "DISMISS": "dismiss", "REPLY": "respond"}[json.loads(self.body())["kind"]]
        except (ValueError, KeyError, TypeError):
            return self.error(422, "kind", "kind is ACK, DISMISS or REPLY")
        status, answer = upstream("POST", f"/api/v1/alerts/{urllib.parse.quote(alert, safe='')}/actions",
                                  {"action": kind, "person": who[0]})
        if status in (403, 404):
            return self.error(status, "alert", answer.decode(errors="replace"))
        if status >= 300:
            return self.reply(502, {"errors": [{"path": "", "message": answer.decode(errors="replace")}]})
        self.audit(who, [json.loads(answer)["patientId"]], "ACK")
        self.reply(204)

    def do_GET(self):
        if self.path.startswith("/v2/patients/") and urllib.parse.urlsplit(self.path).path.endswith("/vitals"):
            return self.vitals()
        if self.path == "/v2/me/pages":
            return self.pages()
        if urllib.parse.urlsplit(self.path).path == "/v2/audit":
            return self.audit_log()
        if self.path == "/_stats":
            with LOCK:
                return self.reply(200, dict(STATS, tokens_issued=ISSUER.issued, expired_rejections=ISSUER.expired_rejections))
        if self.path.startswith("/v2/alerts"):
            return self.alerts()
        self.reply(404, {"errors": [{"path": "", "message": "no such resource"}]})

    def do_POST(self):
        routes = {"/oauth/token": self.token_request, "/v2/patients": self.enrol, "/v2/telemetry": self.telemetry,
                  "/fhir/r4/Observation": self.fhir_observation}
        handler = routes.get(self.path)
        if handler is None and self.path.startswith("/v2/alerts/") and self.path.endswith("/ack"):
            handler = self.ack
        if handler is None:
            self.body()
            return self.reply(404, {"errors": [{"path": "", "message": "no such resource"}]})
        handler()

    def do_DELETE(self):
        if not self.path.startswith("/v2/patients/"):
            return self.reply(404, {"errors": [{"path": "", "message": "no such resource"}]})
        if not self.bearer_ok():
            return
        pid = urllib.parse.unquote(self.path.removeprefix("/v2/patients/"))
        upstream("DELETE", "/api/v1/patients/" + urllib.parse.quote(pid, safe=""))
        with LOCK:
            PATIENTS.discard(pid)
            CARE.pop(pid, None)
        self.reply(204)


NAMES = {"heart-rate": "hr", "systolic": "sys", "diastolic": "dia", "glucose": "bg", "cgm": "cgm", "spo2": "spo2",
         "temperature": "temp", "weight": "wt", "feeding": "feed", "battery": "battery", "steps": "steps", "calories": "kcal",
         "respiration-rate": "rr", "breastfeeding": "bf", "palpitations": "palp", "dizziness": "dizzy", "chest-pain": "cp",
         "shortness-of-breath": "sob", "fainting": "syncope", "ecg-heart-rate": "ecg_hr", "ecg-af": "ecg_af",
         "oxygen-flow": "o2", "ng-tube-size": "ng", "feeding-pump-rate": "pump"}
# Signal → (ACME's unit, factor from upstream's unit).
UNITS = {"glucose": ("mmol/L", 1 / 18.0156), "cgm": ("mmol/L", 1 / 18.0156), "weight": ("[lb_av]", 1 / 0.45359237)}


def vital(item):
    """One stored reading of upstream's read-back in ACME's shape."""
    measurements, units = {}, {}
    for signal, value in item["values"].items():
        name = NAMES.get(signal)
        if name is None:
            continue
        unit, factor = UNITS.get(signal, (item["units"][signal], 1))
        converted = round(value * factor, 2)
        measurements[name] = round(converted) if "coarse-units" in FAULTS else converted
        units[name] = unit
    return {"taken_at": unix_ms(item["timestamp"]) / 1000, "measurements": measurements, "units": units}


def unix_ms(rfc3339):
    return int(datetime.fromisoformat(rfc3339.replace("Z", "+00:00")).timestamp() * 1000)


def reading_time(text):
    """A reading's time in Unix ms, None when it does not parse (upstream will refuse it)."""
    try:
        return unix_ms(text)
    except (ValueError, TypeError, AttributeError):
        return None


def created_at(alert):
    """An alert's time: the reading's, or with --server-clock ACME's clock when the reading that raised
    it was accepted (else when ACME first listed it)."""
    raised = unix_ms(alert["raisedAt"])
    if not SERVER_CLOCK:
        return raised
    with LOCK:
        if alert["alertId"] not in CREATED_AT:
            now = int(time.time() * 1000)
            CREATED_AT[alert["alertId"]] = ACCEPTED_AT.get((alert["patientId"], raised), now)
        return CREATED_AT[alert["alertId"]]


def refusal(answer):
    """(path, message) of an upstream refusal: its field, or an OperationOutcome's expression."""
    try:
        o = json.loads(answer)
    except ValueError:
        return "", "refused"
    if o.get("resourceType") == "OperationOutcome":
        issue = (o.get("issue") or [{}])[0]
        return (issue.get("expression") or [""])[0], issue.get("diagnostics", "refused")
    field = o.get("field", "")
    return ("at" if field == "timestamp" else field), o.get("error", "refused")


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(f"listening on http://127.0.0.1:{server.server_address[1]}", flush=True)
server.serve_forever()
