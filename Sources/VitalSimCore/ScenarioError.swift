/// A problem in a scenario file, located by file, line and column, naming the field and what would be valid.
public struct ScenarioIssue: Error, Sendable, Equatable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var column: Int
    /// Dotted path of the field, e.g. `patients[0].devices[1].type`.
    public var field: String
    public var message: String

    public init(file: String, line: Int, column: Int, field: String, message: String) {
        self.file = file; self.line = line; self.column = column; self.field = field; self.message = message
    }

    /// `file:line:column: error: field: message`.
    public var description: String { "\(file):\(line):\(column): error: \(field.isEmpty ? "" : field + ": ")\(message)" }
}

/// Every problem found in one scenario file (the loader reports them all, not just the first).
public struct ScenarioLoadError: Error, Sendable, CustomStringConvertible {
    public var issues: [ScenarioIssue]
    public init(issues: [ScenarioIssue]) { self.issues = issues }
    public var description: String { issues.map(\.description).joined(separator: "\n") }
}
