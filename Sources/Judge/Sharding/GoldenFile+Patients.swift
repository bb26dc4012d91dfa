extension GoldenFile {
    /// The expectations of some of the scenario's patients only (a shard's): their alerts and the
    /// rejections of their readings (reading ids begin with the patient's id); the budgets and the
    /// traffic digest stay those of the whole scenario.
    package func restricted(to patients: Set<String>) -> GoldenFile {
        var golden = self
        golden.alerts = alerts.filter { patients.contains($0.patientID) }
        golden.validation = validation.filter { patients.contains(String($0.reading.prefix { $0 != "/" })) }
        return golden
    }
}
