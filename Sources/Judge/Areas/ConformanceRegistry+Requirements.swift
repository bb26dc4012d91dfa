import RunRecord
import Traffic
import VitalSimCore

extension ConformanceRegistry {
    /// The ids of the catalogue's requirements (docs/requirements.md) `check` verifies: its area's
    /// (``ConformanceArea/requirements(of:kinds:)``), from the check's name, its alert rule
    /// (`rule.ID`) and the kinds of the readings it is about (`ingest.KIND.accept`,
    /// `ingest.KIND.refuse`); an expired waiver verifies the waiver's expiry. `kinds` gives the kinds
    /// of a reading (`P/D/N`) or a device (`P/D`) the run sent. Every id it gives exists in the
    /// catalogue (the Requirements module's tests hold it to that).
    package func requirements(of check: Check, kinds: (String) -> [VitalKind]) -> [String] {
        if let area = area(of: check) { return area.requirements(of: check, kinds: kinds) }
        return check.kind == .waiver ? ["vitalsim.waiver-expiry"] : []
    }
}

extension Verdict {
    /// Sets each check's requirement ids (``ConformanceRegistry/requirements(of:kinds:)``), the kinds of its readings read from
    /// the requests `plan` sent.
    package mutating func traceRequirements(plan: [SentRequest], registry: ConformanceRegistry = .standard) {
        var byDevice: [String: VitalKindSet] = [:]
        for request in plan {
            byDevice[request.patientID + "/" + request.deviceID, default: VitalKindSet()].formUnion(request.kinds)
        }
        // A reading's kind: its request's; a device's: every kind it sent.
        let rejected = checks.compactMap { check -> String? in
            guard check.kind == .validation || check.kind == .refusedField, check.name.hasPrefix("rejects ") else {
                return nil
            }
            return check.name.dropFirst("rejects ".count).split(separator: " ").first.map(String.init)
        }
        let carriers = SentRequest.carriers(of: rejected, in: plan)
        let kinds: (String) -> [VitalKind] = { subject in
            // A corrupted reading travels alone: its request's kind is its own.
            if let carrier = carriers[subject]?.first, let kind = plan[carrier].kinds.first { return [kind] }
            return byDevice[subject].map(Array.init) ?? []
        }
        for carrier in checks.indices {
            checks[carrier].requirements = registry.requirements(of: checks[carrier], kinds: kinds)
        }
    }
}
