/// A problem in a scenario file, located by file, line and column, naming the field and what would be valid.
public struct ScenarioIssue: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file.
    public var file: String
    /// 1-based line.
    public var line: Int
    /// 1-based column.
    public var column: Int
    /// Dotted path of the field, e.g. `patients[0].devices[1].type`.
    public var field: String
    /// What is wrong and what is expected.
    public var message: String

    /// An issue at a place in a file.
    public init(file: String, line: Int, column: Int, field: String, message: String) {
        self.file = file
        self.line = line
        self.column = column
        self.field = field
        self.message = message
    }

    /// `file:line:column: error: field: message`.
    public var description: String {
        "\(file):\(line):\(column): error: \(field.isEmpty ? "" : field + ": ")\(message)"
    }
}

/// Every problem found in one scenario file (the loader reports them all, not just the first).
public struct ScenarioLoadError: Error, Sendable, CustomStringConvertible {
    /// Every issue found, in file order.
    public var issues: [ScenarioIssue]
    /// An issue at a place in a file.
    public init(issues: [ScenarioIssue]) { self.issues = issues }
    /// A message naming what is wrong and where.
    public var description: String { issues.map(\.description).joined(separator: "\n") }
}
