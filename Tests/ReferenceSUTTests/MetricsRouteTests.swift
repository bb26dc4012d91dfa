import Foundation
import InProcessSUT
import Testing

/// `GET /metrics` (written by swift-prometheus): each family typed and described once, counters
/// by label set, the alert-latency histogram cumulative with its sum and count, and the recent
/// quantile gauges once an alert was raised; no patient id anywhere.
struct MetricsRouteTests {
    @Test func testTheExpositionIsWellFormedAndCountsWhatHappened() async throws {
        let crisis =
            #"{"readingId": "c1", "patientId": "pt-metrics", "deviceId": "cuff", "kind": "blood-pressure", "systolic": 185, "diastolic": 95, "unit": "mm[Hg]", "timestamp": "2024-11-07T08:00:00Z"}"#
        try await InProcessSUT().test { sut async throws in
            #expect(try await sut.post("/api/v1/observations", crisis).status == 200)
            #expect(try await sut.post("/api/v1/observations", crisis).status == 200)
            let metrics = try await sut.get("/metrics")
            #expect(metrics.status == 200)
            let lines = metrics.text.split(separator: "\n").map(String.init)
            var typed: [String: String] = [:]
            var samples: [String: Double] = [:]
            for line in lines {
                if line.hasPrefix("# TYPE ") {
                    let parts = line.split(separator: " ").map(String.init)
                    #expect(typed[parts[2]] == nil, "one TYPE per family: \(line)")
                    typed[parts[2]] = parts[3]
                    continue
                }
                if line.hasPrefix("# HELP ") { continue }
                let parts = line.split(separator: " ")
                #expect(parts.count == 2, "name{labels} value: \(line)")
                samples[String(parts[0])] = Double(parts.last ?? "")
                let family = String(parts[0].prefix { $0 != "{" })
                let base = ["_bucket", "_sum", "_count"].reduce(family) { name, suffix in
                    name.hasSuffix(suffix) && typed[String(name.dropLast(suffix.count))] == "histogram"
                        ? String(name.dropLast(suffix.count)) : name
                }
                #expect(typed[base] != nil, "a sample of a typed family: \(line)")
            }
            #expect(samples[#"vitalsim_readings_total{outcome="accepted",source="observations"}"#] == 1)
            #expect(samples[#"vitalsim_readings_total{outcome="duplicate",source="observations"}"#] == 1)
            #expect(samples[#"vitalsim_alerts_total{rule="bp.hypertensive-crisis",severity="high"}"#] == 1)
            #expect(typed["vitalsim_alert_latency_seconds"] == "histogram")
            #expect(samples["vitalsim_alert_latency_seconds_count"] == 1)
            #expect(samples[#"vitalsim_alert_latency_seconds_bucket{le="+Inf"}"#] == 1)
            let buckets = lines.filter { $0.hasPrefix("vitalsim_alert_latency_seconds_bucket") }
                .compactMap { Double($0.split(separator: " ").last ?? "") }
            #expect(buckets == buckets.sorted(), "cumulative buckets")
            #expect(samples[#"vitalsim_alert_latency_recent_seconds{quantile="1"}"#].map { $0 > 0 } == true)
            // A name no sample value can contain (a latency such as 4.5122507 s contains "507").
            #expect(!metrics.text.contains("pt-metrics"), "no patient id")
        }
    }
}
