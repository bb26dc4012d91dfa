import Foundation

/// Validates a CTRF report with Python's jsonschema (Draft 7, formats checked) against
/// `Tests/schemas/ctrf-1.0.0.schema.json`: the problems found, empty when it conforms.
enum CTRFSchema {
    static func validate(_ path: String) throws -> [String] {
        let python = try TestPython.with(["jsonschema==4.26.0"])
        let script = """
            import json, sys, jsonschema
            schema = json.load(open(sys.argv[1]))
            document = json.load(open(sys.argv[2]))
            validator = jsonschema.Draft7Validator(schema, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER)
            for e in validator.iter_errors(document):
                print("/".join(str(p) for p in e.absolute_path) + ": " + e.message)
            """
        let schema = TestSupport.repositoryRoot + "/Tests/schemas/ctrf-1.0.0.schema.json"
        let ran = try TestSupport.run(python, ["-c", script, schema, path])
        guard ran.status == 0 else { return ["jsonschema could not run: \(ran.err)"] }
        return ran.out.split(separator: "\n").map(String.init)
    }
}
