import Foundation
import XCTest

/// Every FHIR body the core suite sends through `profiles/fhir-server.yaml`, written offline by
/// `vitalsim generate --sut`, checked by an independent R4 validator (fhir.resources 6.5.0 with a
/// strict check that decimals are JSON numbers, `ci/fhir-validate.py`): what is sent valid
/// validates, each structural corruption fails, and each terminology or plausibility corruption
/// is valid R4 — so no refusal VitalSim expects of a plain FHIR server rests on a body FHIR allows.
final class FHIRWireValidationTests: XCTestCase {
    func testEveryFHIRBodyOfTheCoreSuiteIsWhatAnR4ValidatorSays() throws {
        let python = TestSupport.repositoryRoot + "/.venv-fhir/bin/python"
        guard FileManager.default.isExecutableFile(atPath: python) else {
            XCTFail("fhir.resources 6.5.0 is not installed: run ci/setup-debian.sh --python")
            return
        }
        let directory = TestSupport.temporaryDirectory("fhir-wire")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let out = directory + "/generated"
        let generated = try TestSupport.vitalsim(
            [
                "generate", TestSupport.repositoryRoot + "/scenarios/core", "--out", out, "--sut",
                TestSupport.repositoryRoot + "/profiles/fhir-server.yaml", "--run-id", "ci",
            ],
            in: directory
        )
        XCTAssertEqual(generated.status, 0, generated.err)
        let wires = try FileManager.default.contentsOfDirectory(atPath: out).sorted().map { "\(out)/\($0)/wire.jsonl" }
        XCTAssertEqual(wires.count, 25, "one wire log per core scenario")
        let sample = try String(contentsOfFile: out + "/every-kind-valid-and-invalid/wire.jsonl", encoding: .utf8)
        XCTAssertTrue(sample.contains("ifNoneExist"), "conditional creates, as the profile sends them")
        XCTAssertTrue(sample.contains("\"corrupt\":{\"field\""), "the corruptions are marked for the validator")
        let validated = try TestSupport.run(python, [TestSupport.repositoryRoot + "/ci/fhir-validate.py"] + wires)
        XCTAssertEqual(validated.status, 0, validated.out + validated.err)
        XCTAssertTrue(validated.out.hasSuffix(" FHIR request(s) checked, 0 disagreement(s)\n"), validated.out)
    }
}
