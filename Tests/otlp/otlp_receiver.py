#!/usr/bin/env python3
"""An OTLP/HTTP receiver for VitalSim's tests: the OpenTelemetry collector's `otlphttp` receiver
reduced to what a test reads. It decodes each export with opentelemetry-proto (the OpenTelemetry
project's own generated protobuf classes), independently of the Swift exporter, and appends one
JSON line per span and per metric data point to OUT:

  {"signal": "span", "service": ..., "resource": {...}, "name": ..., "traceId": hex, "spanId": hex,
   "parentSpanId": hex, "kind": ..., "attributes": {...}, "start": ns, "end": ns}
  {"signal": "metric", "service": ..., "resource": {...}, "name": ..., "type": "sum|gauge|histogram",
   "attributes": {...}, "value": number (sum, gauge) or "count": n (histogram)}

It answers as the OTLP/HTTP specification says: 200 with an empty Export*ServiceResponse for a
decodable protobuf body, 400 for one that does not decode, 415 for another content type, 404 for
another path. Prints `listening on PORT` once ready.

Usage: otlp_receiver.py OUT
"""
import gzip
import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from google.protobuf.message import DecodeError
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
    ExportMetricsServiceRequest,
    ExportMetricsServiceResponse,
)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)

OUT = open(sys.argv[1], "a", encoding="utf-8")


def value(any_value):
    kind = any_value.WhichOneof("value")
    return getattr(any_value, kind) if kind else None


def attributes(key_values):
    return {kv.key: value(kv.value) for kv in key_values}


def spans(request):
    for resource_spans in request.resource_spans:
        resource = attributes(resource_spans.resource.attributes)
        for scope in resource_spans.scope_spans:
            for span in scope.spans:
                yield {
                    "signal": "span",
                    "service": resource.get("service.name"),
                    "resource": resource,
                    "name": span.name,
                    "traceId": span.trace_id.hex(),
                    "spanId": span.span_id.hex(),
                    "parentSpanId": span.parent_span_id.hex(),
                    "kind": span.kind,
                    "attributes": attributes(span.attributes),
                    "start": span.start_time_unix_nano,
                    "end": span.end_time_unix_nano,
                }


def points(request):
    for resource_metrics in request.resource_metrics:
        resource = attributes(resource_metrics.resource.attributes)
        for scope in resource_metrics.scope_metrics:
            for metric in scope.metrics:
                kind = metric.WhichOneof("data")
                for point in getattr(metric, kind).data_points:
                    row = {
                        "signal": "metric",
                        "service": resource.get("service.name"),
                        "resource": resource,
                        "name": metric.name,
                        "type": kind,
                        "attributes": attributes(point.attributes),
                    }
                    if kind == "histogram":
                        row["count"] = point.count
                    else:
                        row["value"] = point.as_double if point.WhichOneof("value") == "as_double" else point.as_int
                    yield row


SIGNALS = {
    "/v1/traces": (ExportTraceServiceRequest, ExportTraceServiceResponse, spans),
    "/v1/metrics": (ExportMetricsServiceRequest, ExportMetricsServiceResponse, points),
}


class Receiver(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        if self.headers.get("Content-Encoding") == "gzip":
            body = gzip.decompress(body)
        if self.path not in SIGNALS:
            return self.answer(404, b"")
        if self.headers.get("Content-Type", "").split(";")[0].strip() != "application/x-protobuf":
            return self.answer(415, b"")
        request_type, response_type, rows = SIGNALS[self.path]
        request = request_type()
        try:
            request.ParseFromString(body)
        except DecodeError:
            return self.answer(400, b"")
        for row in rows(request):
            OUT.write(json.dumps(row, sort_keys=True) + "\n")
        OUT.flush()
        self.answer(200, response_type().SerializeToString())

    def answer(self, status, body):
        self.send_response(status)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


server = ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
print(f"listening on {server.server_address[1]}", flush=True)
server.serve_forever()
