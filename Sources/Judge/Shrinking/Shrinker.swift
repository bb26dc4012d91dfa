import VitalSimCore

/// `vitalsim shrink`'s search: delta debugging (``DeltaDebugging``) over a scenario's patients, then
/// their devices, then the timeline entries left, then a binary search on the duration, for the
/// smallest scenario whose run still fails with ``target``. Each candidate is run once (the SUT is
/// deterministic for a given scenario and seed); the search stops early when its budget of runs or
/// time is spent, keeping the smallest failing scenario found so far.
package final class Shrinker {
    /// How much searching is allowed.
    package struct Budget: Sendable {
        package var runs: Int
        package var seconds: Double
        package init(runs: Int, seconds: Double) {
            self.runs = runs
            self.seconds = seconds
        }
    }

    /// What one candidate's run found: the failures of its verdict, or why it could not be judged.
    package enum Outcome: Sendable {
        case judged([FailureSignature])
        case notRun(String)
    }

    /// What the search found.
    package struct Result: Sendable {
        package var selection: ScenarioDocument.Selection
        /// Candidates run (the original's confirmation included).
        package var runs: Int
        /// True when the budget ran out before the search finished.
        package var exhausted: Bool
    }

    let document: ScenarioDocument
    let target: FailureSignature
    let budget: Budget
    /// Runs a candidate scenario (its YAML text).
    let evaluate: (String) async -> Outcome
    let progress: (String) -> Void
    /// Time spent since the search began, on the caller's clock (the module reads none).
    let elapsed: () -> Duration
    var runs = 0
    var exhausted = false
    var cache: [String: Bool] = [:]

    package init(
        document: ScenarioDocument,
        target: FailureSignature,
        budget: Budget,
        evaluate: @escaping (String) async -> Outcome,
        progress: @escaping (String) -> Void,
        elapsed: @escaping () -> Duration
    ) {
        self.document = document
        self.target = target
        self.budget = budget
        self.evaluate = evaluate
        self.progress = progress
        self.elapsed = elapsed
    }

    /// The candidate's text (under the scenario's own name: only the final file is renamed).
    func text(_ scenarioDocument: ScenarioDocument.Selection) -> String {
        document.text(scenarioDocument, name: document.name, description: "candidate of vitalsim shrink")
    }

    /// Whether the candidate still fails with the target (false when it cannot be run, or the budget is spent).
    func fails(_ scenarioDocument: ScenarioDocument.Selection) async -> Bool {
        let text = text(scenarioDocument)
        if let known = cache[text] { return known }
        guard runs < budget.runs, elapsed() < .seconds(budget.seconds) else {
            exhausted = true
            return false
        }
        // A candidate the loader refuses (a timeline entry past the end, a patient without devices)
        // is not run and costs nothing.
        do throws(ScenarioLoadError) { _ = try ScenarioLoader.parse(text, file: "candidate") } catch {
            cache[text] = false
            return false
        }
        runs += 1
        let outcome = await evaluate(text)
        let result: Bool
        let note: String
        switch outcome {
        case let .judged(failures):
            result = failures.contains(target)
            note = result ? "still fails" : (failures.isEmpty ? "passes" : "fails otherwise (\(failures[0]))")
        case let .notRun(why):
            result = false
            note = "not run: \(why)"
        }
        cache[text] = result
        progress(
            "run \(runs): \(document.describe(scenarioDocument)): \(note)"
        )
        return result
    }

    /// Confirms the whole scenario fails with the target, then shrinks it; nil when it does not fail.
    package func run() async -> Result? {
        var current = document.whole
        guard await fails(current) else { return nil }
        current = await minimize(current.patients, from: current) { s, kept in s.patients = kept }
        let kept = Set(current.patients)
        current.devices = current.devices.filter { kept.contains($0.patient) }
        current = await minimize(current.devices, from: current) { s, kept in s.devices = kept }
        current.timeline = document.applicableTimeline(current)
        current = await minimize(current.timeline, from: current) { s, kept in s.timeline = kept }
        current = await shortenDuration(current)
        return Result(selection: current, runs: runs, exhausted: exhausted)
    }

    func minimize<Item>(
        _ items: [Item],
        from start: ScenarioDocument.Selection,
        _ apply: (inout ScenarioDocument.Selection, [Item]) -> Void
    ) async -> ScenarioDocument.Selection {
        let kept = await DeltaDebugging.minimize(items) { subset in
            var size = start
            apply(&size, subset)
            return await fails(size)
        }
        var out = start
        apply(&out, kept)
        return out
    }

    /// The shortest duration (to the minute, at least one minute) that still fails: halving while it
    /// fails, then a binary search between the last failing and first passing lengths.
    func shortenDuration(_ scenarioDocument: ScenarioDocument.Selection) async -> ScenarioDocument.Selection {
        let minute: Int64 = 60_000
        var failing = max(scenarioDocument.duration.milliseconds / minute, 1)
        var passing: Int64 = 0
        var candidate = scenarioDocument
        while failing > 1 {
            candidate.duration = VirtualDuration(milliseconds: (failing / 2) * minute)
            if await fails(candidate) {
                failing /= 2
            } else {
                passing = failing / 2
                break
            }
        }
        while failing - passing > 1 && !exhausted {
            let middle = (failing + passing) / 2
            candidate.duration = VirtualDuration(milliseconds: middle * minute)
            if await fails(candidate) { failing = middle } else { passing = middle }
        }
        candidate.duration = VirtualDuration(milliseconds: failing * minute)
        return failing * minute < scenarioDocument.duration.milliseconds ? candidate : scenarioDocument
    }
}
